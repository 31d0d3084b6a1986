/**
 * Live locks of a workspace, polled about once a second: holder, scope, mode and an expiry
 * countdown. Owners can break the selected lock after confirming.
 */
import type { Lock, Satchel } from '@satchel/core';
import { Box } from 'ink';
import { useState } from 'react';
import { humanDuration, table } from '../../format.js';
import { useCaptureKeys } from '../capture.js';
import { Confirm, Hints, List, moved, Problem, problemText, Row, Title } from '../parts.js';
import { useTint } from '../theme.js';
import { useInterval } from '../use-interval.js';
import { useKeys } from '../use-keys.js';

export interface LocksScreenProps {
  readonly satchel: Satchel;
  readonly workspace: string;
  readonly active: boolean;
  readonly height: number;
  /** How often the list is re-read (default 3000 ms; each read is an audit entry). */
  readonly pollMs?: number;
  readonly onBack: () => void;
}

export function lockLines(locks: readonly Lock[], now: number): string[] {
  return table(
    locks.map((l) => [
      l.path,
      l.scope,
      l.mode,
      l.session === null ? l.holder : `${l.holder} [${l.session}]`,
      `token ${l.token}`,
      `expires in ${humanDuration(Date.parse(l.expiresAt) - now)}`,
    ]),
    ['left', 'left', 'left', 'left', 'right', 'left'],
  );
}

export function LocksScreen({
  satchel,
  workspace: ws,
  active,
  height,
  pollMs = 3000,
  onBack,
}: LocksScreenProps) {
  const tint = useTint();
  const [locks, setLocks] = useState<Lock[] | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const [selected, setSelected] = useState(0);
  const [confirming, setConfirming] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  useCaptureKeys(confirming);

  const refresh = () => {
    satchel.listLocks(ws).then(
      (items) => {
        setLocks(items);
        setNow(Date.now());
        setSelected((s) => Math.min(s, Math.max(0, items.length - 1)));
      },
      (error: unknown) => setProblem(problemText(error)),
    );
  };
  useInterval(refresh, pollMs);
  // The countdown moves every second between reads.
  useInterval(() => setNow(Date.now()), 1000);

  const lock = locks?.[selected];
  useKeys((input, key) => {
    if (confirming) {
      if (input === 'y' && lock !== undefined) {
        setConfirming(false);
        satchel.breakLock(ws, lock.id).then(
          (broken) => {
            setNotice(`broke ${broken.holder}’s lock on ${broken.path}`);
            refresh();
          },
          (error: unknown) => setProblem(problemText(error)),
        );
      } else if (input === 'n' || key.escape) setConfirming(false);
      return;
    }
    const next = moved(input, key, selected, locks?.length ?? 0, height - 4);
    if (next !== null) setSelected(next);
    else if (input === 'b' && lock !== undefined) {
      setProblem(null);
      setNotice(null);
      setConfirming(true);
    } else if (key.escape) onBack();
  }, active);

  return (
    <Box flexDirection="column" height={height}>
      <Title
        text={`Locks in ${ws}`}
        note={
          locks === null
            ? 'loading…'
            : `${locks.length} live · re-read every ${pollMs >= 1000 ? `${Math.round(pollMs / 1000)} s` : `${pollMs} ms`}`
        }
      />
      <Box flexGrow={1} flexDirection="column">
        <List
          rows={lockLines(locks ?? [], now)}
          selected={selected}
          height={Math.max(1, height - 4)}
          empty="no live locks"
        />
      </Box>
      {confirming && lock !== undefined ? (
        <Confirm question={`Break ${lock.holder}’s lock on ${lock.path}?`} />
      ) : notice !== null ? (
        <Row text={notice} color={tint('green')} />
      ) : (
        <Problem message={problem} />
      )}
      <Hints
        items={[
          ['↑↓', 'move'],
          ['b', 'break (owners)'],
          ['esc', 'files'],
        ]}
      />
    </Box>
  );
}
