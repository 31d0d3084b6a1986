/**
 * The workspace's audit log, newest first, with the result of verifying the hash chain
 * (`verifyAudit`, admin only: others see why it is not shown).
 */
import type { AuditEntryOut, AuditVerificationOut, Satchel } from '@satchel/core';
import { Box } from 'ink';
import { useEffect, useState } from 'react';
import { shortTime, table } from '../../format.js';
import { Hints, List, moved, Problem, problemText, Row, Title } from '../parts.js';
import { useTint } from '../theme.js';
import { useKeys } from '../use-keys.js';

/** Pages of 1000 read at most (oldest first, as the log pages); the screen says when it stopped. */
const MAX_PAGES = 50;
const KEEP = 1000;

export interface AuditScreenProps {
  readonly satchel: Satchel;
  readonly workspace: string;
  readonly active: boolean;
  readonly height: number;
  readonly onBack: () => void;
}

type Verification =
  | { readonly state: 'checking' }
  | { readonly state: 'done'; readonly result: AuditVerificationOut }
  | { readonly state: 'failed'; readonly message: string };

export function auditLines(entries: readonly AuditEntryOut[]): string[] {
  return table(
    entries.map((e) => [
      `#${e.idx}`,
      shortTime(e.time),
      e.session === null ? e.actor : `${e.actor} [${e.session}]`,
      e.action,
      e.path === null ? '-' : e.seq === null ? e.path : `${e.path}@${e.seq}`,
      e.code === null ? e.outcome : `${e.outcome} ${e.code}`,
    ]),
    ['right', 'left', 'left', 'left', 'left', 'left'],
  );
}

export function verificationText(v: Verification): string {
  if (v.state === 'checking') return 'verifying the hash chain…';
  if (v.state === 'failed') return `verification unavailable: ${v.message}`;
  const { result } = v;
  if (!result.ok) {
    return `chain BROKEN at entry ${result.index ?? '?'}: ${result.reason ?? 'unknown reason'}`;
  }
  const checkpoint = result.checkpoint === null ? '' : `, checkpoint ${result.checkpoint}`;
  return `chain verified: ${result.entries} entries intact${checkpoint}`;
}

/** The newest entries read, newest first; `more` when the page budget ran out first. */
async function newest(
  satchel: Satchel,
  ws: string,
): Promise<{ entries: AuditEntryOut[]; more: boolean }> {
  let kept: AuditEntryOut[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const found = await satchel.listAudit({ workspace: ws, limit: 1000, cursor });
    kept = [...kept, ...found.items].slice(-KEEP);
    if (found.nextCursor === null) return { entries: kept.reverse(), more: false };
    cursor = found.nextCursor;
  }
  return { entries: kept.reverse(), more: true };
}

export function AuditScreen({ satchel, workspace: ws, active, height, onBack }: AuditScreenProps) {
  const tint = useTint();
  const [entries, setEntries] = useState<AuditEntryOut[] | null>(null);
  const [more, setMore] = useState(false);
  const [verification, setVerification] = useState<Verification>({ state: 'checking' });
  const [selected, setSelected] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);
  const [reload, setReload] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `reload` re-runs it on demand (r)
  useEffect(() => {
    let live = true;
    setVerification({ state: 'checking' });
    newest(satchel, ws).then(
      (found) => {
        if (!live) return;
        setEntries(found.entries);
        setMore(found.more);
      },
      (error: unknown) => live && setProblem(problemText(error)),
    );
    satchel.verifyAudit().then(
      (result) => live && setVerification({ state: 'done', result }),
      (error: unknown) => live && setVerification({ state: 'failed', message: problemText(error) }),
    );
    return () => {
      live = false;
    };
  }, [satchel, ws, reload]);

  useKeys((input, key) => {
    const next = moved(input, key, selected, entries?.length ?? 0, height - 4);
    if (next !== null) setSelected(next);
    else if (input === 'v' || input === 'r') setReload((n) => n + 1);
    else if (key.escape) onBack();
  }, active);

  const verdict =
    verification.state === 'done'
      ? verification.result.ok
        ? tint('green')
        : tint('red')
      : verification.state === 'failed'
        ? tint('yellow')
        : undefined;
  return (
    <Box flexDirection="column" height={height}>
      <Title
        text={`Audit log of ${ws}`}
        note={
          entries === null
            ? 'loading…'
            : more
              ? `the ${entries.length} newest of the first ${MAX_PAGES * 1000}; more: satchel audit --cursor`
              : `${entries.length} entries, newest first`
        }
      />
      <Row text={verificationText(verification)} color={verdict} bold />
      <Box flexGrow={1} flexDirection="column">
        <List
          rows={auditLines(entries ?? [])}
          selected={selected}
          height={Math.max(1, height - 4)}
          empty="no entries"
        />
      </Box>
      <Problem message={problem} />
      <Hints
        items={[
          ['↑↓', 'move'],
          ['v', 'verify again'],
          ['esc', 'files'],
        ]}
      />
    </Box>
  );
}
