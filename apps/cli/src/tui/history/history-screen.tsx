/**
 * The history of one file: its versions (newest first), a coloured diff between any two of
 * them, and restore with confirmation. State lives here; VersionList and DiffView draw it.
 */
import type { DiffResult, Satchel, Version } from '@satchel/core';
import { Box } from 'ink';
import { useEffect, useState } from 'react';
import { humanSize, shortTime, table } from '../../format.js';
import { useCaptureKeys } from '../capture.js';
import { Confirm, Hints, List, Problem, problemText, Row, Title } from '../parts.js';
import { useTint } from '../theme.js';
import { useKeys } from '../use-keys.js';
import { DiffView, diffLines } from './diff-view.js';

export interface HistoryScreenProps {
  readonly satchel: Satchel;
  readonly workspace: string;
  readonly path: string;
  readonly active: boolean;
  readonly height: number;
  readonly onBack: () => void;
}

/** The pair to compare: the marked version and the selected one (older first), else the
 * selected one against the version before it. */
export function diffRange(selected: number, mark: number | null): { from?: number; to: number } {
  if (mark === null || mark === selected) return { to: selected };
  return { from: Math.min(mark, selected), to: Math.max(mark, selected) };
}

export function versionLines(versions: readonly Version[], mark: number | null): string[] {
  return table(
    versions.map((v) => [
      `${v.seq === mark ? '●' : ' '} v${v.seq}`,
      shortTime(v.time),
      v.op,
      v.author,
      v.deleted || v.type === 'directory' ? '-' : humanSize(v.size),
      [
        v.session === null ? '' : `[${v.session}]`,
        v.message === null ? '' : JSON.stringify(v.message),
        v.deleted ? '(deleted)' : '',
      ]
        .filter((s) => s !== '')
        .join(' '),
    ]),
    ['left', 'left', 'left', 'left', 'right', 'left'],
  );
}

export function HistoryScreen({
  satchel,
  workspace: ws,
  path,
  active,
  height,
  onBack,
}: HistoryScreenProps) {
  const tint = useTint();
  const [versions, setVersions] = useState<Version[] | null>(null);
  const [selected, setSelected] = useState(0);
  const [mark, setMark] = useState<number | null>(null);
  const [diff, setDiff] = useState<DiffResult | null>(null);
  const [diffProblem, setDiffProblem] = useState<string | null>(null);
  const [loadingDiff, setLoadingDiff] = useState(false);
  const [scroll, setScroll] = useState(0);
  const [confirming, setConfirming] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  useCaptureKeys(confirming);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `reload` re-runs it on demand (r)
  useEffect(() => {
    let live = true;
    satchel.listVersions(ws, path, { limit: 1000 }).then(
      (page) => {
        if (!live) return;
        setVersions(page.items);
        setProblem(null);
      },
      (error: unknown) => live && setProblem(problemText(error)),
    );
    return () => {
      live = false;
    };
  }, [satchel, ws, path, reload]);

  const version = versions?.[selected];
  const seq = version?.seq;
  useEffect(() => {
    if (seq === undefined) return;
    let live = true;
    setLoadingDiff(true);
    satchel
      .diff(ws, path, diffRange(seq, mark))
      .then(
        (result) => {
          if (!live) return;
          setDiff(result);
          setDiffProblem(null);
        },
        (error: unknown) => {
          if (!live) return;
          setDiff(null);
          setDiffProblem(problemText(error));
        },
      )
      .finally(() => {
        if (live) {
          setLoadingDiff(false);
          setScroll(0);
        }
      });
    return () => {
      live = false;
    };
  }, [satchel, ws, path, seq, mark]);

  const listHeight = Math.max(3, Math.min((versions?.length ?? 0) + 1, Math.floor(height / 3)));
  const diffHeight = Math.max(2, height - listHeight - 3);
  const maxScroll = Math.max(0, diffLines(diff).length - (diffHeight - 1));

  useKeys((input, key) => {
    if (confirming) {
      if (input === 'y' && version !== undefined) {
        setConfirming(false);
        satchel.restore(ws, path, version.seq).then(
          (info) => {
            setNotice(`restored ${path} to v${version.seq} as v${info.seq}`);
            setSelected(0);
            setMark(null);
            setReload((n) => n + 1);
          },
          (error: unknown) => setProblem(problemText(error)),
        );
      } else if (input === 'n' || key.escape) setConfirming(false);
      return;
    }
    const count = versions?.length ?? 0;
    if (key.upArrow || input === 'k') setSelected((s) => Math.max(0, s - 1));
    else if (key.downArrow || input === 'j') setSelected((s) => Math.min(count - 1, s + 1));
    else if (key.pageDown || input === ' ' || input === 'f')
      setScroll((s) => Math.min(maxScroll, s + diffHeight - 2));
    else if (key.pageUp || input === 'b') setScroll((s) => Math.max(0, s - (diffHeight - 2)));
    else if (input === 'm' && seq !== undefined) setMark((m) => (m === seq ? null : seq));
    else if (input === 'r' && version !== undefined) {
      setNotice(null);
      setProblem(null);
      setConfirming(true);
    } else if (key.escape || key.backspace || key.delete) onBack();
  }, active);

  return (
    <Box flexDirection="column" height={height}>
      <Title
        text={`History of ${path}`}
        note={versions === null ? 'loading…' : `${versions.length} versions`}
      />
      <Box height={listHeight} flexDirection="column">
        <List rows={versionLines(versions ?? [], mark)} selected={selected} height={listHeight} />
      </Box>
      <Box height={diffHeight} flexDirection="column" overflow="hidden">
        <DiffView
          diff={diff}
          loading={loadingDiff}
          problem={diffProblem}
          scroll={Math.min(scroll, maxScroll)}
          height={diffHeight}
        />
      </Box>
      {confirming && version !== undefined ? (
        <Confirm question={`Restore ${path} to version ${version.seq}?`} />
      ) : notice !== null ? (
        <Row text={notice} color={tint('green')} />
      ) : (
        <Problem message={problem} />
      )}
      <Hints
        items={[
          ['↑↓', 'version'],
          ['m', mark === null ? 'mark to compare' : 'unmark'],
          ['pgup/pgdn', 'scroll diff'],
          ['r', 'restore'],
          ['esc', 'back'],
        ]}
      />
    </Box>
  );
}
