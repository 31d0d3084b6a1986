/**
 * The file browser of one workspace: a lazily loaded tree on the left, the selected file's
 * preview on the right. State lives here; FileTree and PreviewPane only draw it.
 */
import { type FileInfo, isSatchelError, type Satchel } from '@satchel/core';
import { Box } from 'ink';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { Hints, moved, Problem, problemText } from '../parts.js';
import { useKeys } from '../use-keys.js';
import { FileTree } from './file-tree.js';
import { type Preview, PreviewPane, previewLines } from './preview-pane.js';
import { ancestors, sortEntries, visibleRows } from './tree.js';

/** Text previews read at most this much; the pane says when a file continues. */
const PREVIEW_BYTES = 512 * 1024;

export interface Reveal {
  readonly path: string;
  /** 1-based line to scroll the preview to. */
  readonly line?: number;
}

export interface BrowserScreenProps {
  readonly satchel: Satchel;
  readonly workspace: string;
  readonly active: boolean;
  readonly height: number;
  readonly width: number;
  /** Open with this file selected (from search), its directories expanded. */
  readonly reveal?: Reveal;
  readonly onBack: () => void;
  readonly onHistory: (path: string) => void;
}

async function loadPreview(satchel: Satchel, ws: string, info: FileInfo): Promise<Preview> {
  if (info.type === 'directory') return { kind: 'directory', info };
  try {
    const slice = await satchel.readText(ws, info.path, { maxBytes: PREVIEW_BYTES });
    const lines = slice.text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    return { kind: 'text', info: slice.info, lines, truncated: slice.truncated };
  } catch (error) {
    // readText refuses binary content with INVALID_INPUT: show what it is instead.
    if (isSatchelError(error) && error.code === 'INVALID_INPUT') return { kind: 'binary', info };
    return { kind: 'error', path: info.path, message: problemText(error) };
  }
}

export function BrowserScreen(props: BrowserScreenProps) {
  const { satchel, workspace: ws, active, height, width, reveal } = props;
  const [children, setChildren] = useState<ReadonlyMap<string, readonly FileInfo[]>>(new Map());
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(
    () => new Set(reveal === undefined ? [] : ancestors(reveal.path)),
  );
  const [selected, setSelected] = useState(0);
  const [focus, setFocus] = useState<'tree' | 'preview'>('tree');
  const [preview, setPreview] = useState<Preview>({ kind: 'none' });
  const [scroll, setScroll] = useState(0);
  const [rendered, setRendered] = useState(true);
  const [problem, setProblem] = useState<string | null>(null);
  const [pending, setPending] = useState<Reveal | null>(reveal ?? null);
  const [loading, setLoading] = useState(0);

  const load = useCallback(
    async (dir: string) => {
      setLoading((n) => n + 1);
      try {
        const page = await satchel.list(ws, { path: dir, limit: 1000 });
        setChildren((old) => new Map(old).set(dir, sortEntries(page.items)));
        setProblem(null);
      } catch (error) {
        setProblem(problemText(error));
      } finally {
        setLoading((n) => n - 1);
      }
    },
    [satchel, ws],
  );

  useEffect(() => {
    for (const dir of ['/', ...(reveal === undefined ? [] : ancestors(reveal.path))]) {
      void load(dir);
    }
  }, [load, reveal]);

  const rows = useMemo(() => visibleRows(children, expanded), [children, expanded]);

  // A revealed path is selected as soon as its row exists.
  useEffect(() => {
    if (pending === null) return;
    const index = rows.findIndex((row) => row.info.path === pending.path);
    if (index !== -1) setSelected(index);
  }, [rows, pending]);

  const current = rows[Math.min(selected, Math.max(0, rows.length - 1))]?.info;
  const currentKey = current === undefined ? null : `${current.path}@${current.seq}`;
  // Keyed by path and version: reloads when the selection or its head changes, not on every
  // re-listing that returns an equal entry.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `current` is read through `currentKey`
  useEffect(() => {
    if (current === undefined) {
      setPreview({ kind: 'none' });
      return;
    }
    let live = true;
    setPreview({ kind: 'loading', path: current.path });
    void loadPreview(satchel, ws, current).then((next) => {
      if (!live) return;
      setPreview(next);
      setScroll(0);
      setPending((wanted) => {
        if (wanted?.path === current.path) {
          if (wanted.line !== undefined) setScroll(Math.max(0, wanted.line - 3));
          if (wanted.line !== undefined) setFocus('preview');
          return null;
        }
        return wanted;
      });
    });
    return () => {
      live = false;
    };
  }, [satchel, ws, currentKey]);

  const body = height - 2;
  const lineCount = previewLines(preview, rendered).length;
  const maxScroll = Math.max(0, lineCount - (body - 2));

  const toggle = (info: FileInfo, open: boolean) => {
    const next = new Set(expanded);
    if (open) {
      next.add(info.path);
      if (!children.has(info.path)) void load(info.path);
    } else next.delete(info.path);
    setExpanded(next);
  };

  useKeys((input, key) => {
    if (input === 'r') {
      for (const dir of children.keys()) void load(dir);
      return;
    }
    if (input === 'h' && current?.type === 'file') {
      props.onHistory(current.path);
      return;
    }
    if (focus === 'preview') {
      const next = moved(input, key, scroll, maxScroll + 1, body - 3);
      if (next !== null) setScroll(next);
      else if (input === 'm') setRendered((r) => !r);
      else if (key.tab || key.escape || key.leftArrow) setFocus('tree');
      return;
    }
    const next = moved(input, key, selected, rows.length, body - 2);
    if (next !== null) {
      setSelected(next);
      setPending(null);
      return;
    }
    const row = rows[selected];
    if (key.escape || key.backspace || key.delete) props.onBack();
    else if (key.tab) setFocus('preview');
    else if (row === undefined) return;
    else if (row.info.type === 'directory') {
      if (key.rightArrow || (key.return && !row.expanded)) toggle(row.info, true);
      else if (key.leftArrow || (key.return && row.expanded)) toggle(row.info, false);
    } else if (key.return || key.rightArrow) setFocus('preview');
    else if (key.leftArrow && row.depth > 0) {
      const parent = rows.findLastIndex((r, i) => i < selected && r.depth === row.depth - 1);
      if (parent !== -1) setSelected(parent);
    }
  }, active);

  const treeWidth = Math.max(30, Math.min(64, Math.floor(width * 0.42)));
  return (
    <Box flexDirection="column" height={height}>
      <Box height={body}>
        <Box width={treeWidth} flexShrink={0} flexDirection="column" marginRight={1}>
          <FileTree
            workspace={ws}
            rows={rows}
            selected={selected}
            height={body}
            focused={focus === 'tree'}
            loading={loading > 0}
          />
        </Box>
        <Box flexGrow={1} flexDirection="column" overflow="hidden">
          <PreviewPane
            preview={preview}
            scroll={Math.min(scroll, maxScroll)}
            height={body}
            focused={focus === 'preview'}
            rendered={rendered}
          />
        </Box>
      </Box>
      <Problem message={problem} />
      <Hints
        items={
          focus === 'tree'
            ? [
                ['↑↓', 'move'],
                ['→/enter', 'open'],
                ['←', 'close'],
                ['tab', 'preview'],
                ['h', 'history'],
                ['r', 'refresh'],
                ['esc', 'workspaces'],
              ]
            : [
                ['↑↓ pgup pgdn', 'scroll'],
                ['m', rendered ? 'markdown source' : 'render markdown'],
                ['h', 'history'],
                ['tab/esc', 'tree'],
              ]
        }
      />
    </Box>
  );
}
