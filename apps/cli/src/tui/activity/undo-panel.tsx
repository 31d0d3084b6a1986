/**
 * Undo of one session, from the activity view: the preview first (what each path goes back to,
 * with its diff, and the paths someone else changed since, which stay as they are), then, on
 * confirmation, the undo itself — one new seq, as a session of its own that can be undone too.
 */
import type { Satchel, UndoChange, UndoConflict, UndoPreview, UndoState } from '@satchel/core';
import { Box } from 'ink';
import { useEffect, useState } from 'react';
import { table } from '../../format.js';
import { useCaptureKeys } from '../capture.js';
import { DiffLines, unifiedLines } from '../history/diff-view.js';
import { Confirm, Hints, List, Problem, problemText, Title } from '../parts.js';
import { useKeys } from '../use-keys.js';

export interface UndoPanelProps {
  readonly satchel: Satchel;
  readonly workspace: string;
  readonly session: string;
  readonly active: boolean;
  readonly height: number;
  /** The undo was applied: what to tell the user. */
  readonly onDone: (notice: string) => void;
  readonly onClose: () => void;
}

function seqOf(state: UndoState): string {
  if (state === null) return 'none';
  return state.deleted ? `v${state.seq} (deleted)` : `v${state.seq}`;
}

/** One row per change, then one per conflict (left as it is). */
export function undoLines(preview: UndoPreview): string[] {
  return table([
    ...preview.changes.map((c: UndoChange) => [
      c.action,
      c.path,
      `${seqOf(c.from)} → ${seqOf(c.to)}`,
    ]),
    ...preview.conflicts.map((c: UndoConflict) => [
      `left: ${c.reason}`,
      c.path,
      c.theirs === null ? '' : `head ${seqOf(c.theirs)} by ${c.theirs.author}`,
    ]),
  ]);
}

export function summaryOf({ summary, truncated }: UndoPreview): string {
  const counts = `${summary.revert} to revert, ${summary.delete} to delete, ${summary.recreate} to recreate`;
  const more = truncated ? ' (more than listed)' : '';
  return `${counts}, ${summary.conflicts} left as they are${more}`;
}

export function UndoPanel(props: UndoPanelProps) {
  const { satchel, workspace: ws, session, active, height, onDone, onClose } = props;
  const [preview, setPreview] = useState<UndoPreview | null>(null);
  const [selected, setSelected] = useState(0);
  const [scroll, setScroll] = useState(0);
  const [confirming, setConfirming] = useState(false);
  const [applying, setApplying] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  useCaptureKeys(confirming);

  useEffect(() => {
    let live = true;
    satchel.previewUndo(ws, { session }, { diff: true }).then(
      (result) => live && setPreview(result),
      (error: unknown) => live && setProblem(problemText(error)),
    );
    return () => {
      live = false;
    };
  }, [satchel, ws, session]);

  const rows = preview === null ? [] : undoLines(preview);
  const change = preview?.changes[selected];
  const lines = unifiedLines(change?.diff ?? null);
  const listHeight = Math.max(3, Math.min(rows.length + 1, Math.floor(height / 3)));
  const diffHeight = Math.max(2, height - listHeight - 3);
  const maxScroll = Math.max(0, lines.length - (diffHeight - 1));

  const apply = (head: number) => {
    setApplying(true);
    satchel.undo(ws, { session }, { ifHead: head, diff: false }).then(
      (result) =>
        onDone(
          result.seq === null
            ? `nothing to undo in session ${session}`
            : `undid session ${session} in seq ${result.seq} as session ${result.session} (u on it takes it back)`,
        ),
      (error: unknown) => {
        setApplying(false);
        setProblem(problemText(error));
      },
    );
  };

  useKeys((input, key) => {
    if (confirming) {
      setConfirming(false);
      if (input === 'y' && preview !== null) apply(preview.head);
      return;
    }
    const pick = (next: number) => {
      setSelected(Math.max(0, Math.min(rows.length - 1, next)));
      setScroll(0);
    };
    if (key.upArrow || input === 'k') pick(selected - 1);
    else if (key.downArrow || input === 'j') pick(selected + 1);
    else if (key.pageDown || input === ' ' || input === 'f')
      setScroll((s) => Math.min(maxScroll, s + diffHeight - 2));
    else if (key.pageUp || input === 'b') setScroll((s) => Math.max(0, s - (diffHeight - 2)));
    else if (input === 'a' && preview !== null && preview.changes.length > 0 && !applying) {
      setProblem(null);
      setConfirming(true);
    } else if (key.escape) onClose();
  }, active);

  const changes = preview?.changes.length ?? 0;
  return (
    <Box flexDirection="column" height={height}>
      <Title
        text={`Undo session ${session}`}
        note={preview === null ? 'previewing…' : summaryOf(preview)}
      />
      <Box height={listHeight} flexDirection="column">
        <List
          rows={rows}
          selected={selected}
          height={listHeight}
          empty={preview === null ? '' : 'nothing to undo: every path is already as it was'}
        />
      </Box>
      <Box height={diffHeight} flexDirection="column" overflow="hidden">
        <DiffLines
          lines={lines}
          range={preview === null ? null : (change?.path ?? '')}
          problem={null}
          empty={
            change === undefined
              ? 'a path left as it is: someone else changed it after this session'
              : lines.length === 0
                ? (change.diffNote ?? `no text diff (${change.action})`)
                : null
          }
          scroll={Math.min(scroll, maxScroll)}
          height={diffHeight}
        />
      </Box>
      {confirming ? (
        <Confirm question={`Undo ${changes} changes of session ${session} in one new seq?`} />
      ) : (
        <Problem message={applying ? null : problem} />
      )}
      <Hints
        items={[
          ['↑↓', 'path'],
          ['pgup/pgdn', 'scroll diff'],
          ['a', 'apply'],
          ['esc', 'back'],
        ]}
      />
    </Box>
  );
}
