/**
 * The search box: `grep` (literal, case-insensitive, line by line over the current files) or,
 * with tab, ranked search (`search`: BM25 passages with citations). Enter on a hit opens the
 * file in the browser at that line.
 */
import type { Satchel } from '@satchel/core';
import { Box, Text } from 'ink';
import { useState } from 'react';
import { table } from '../../format.js';
import { useCaptureKeys } from '../capture.js';
import { Hints, List, moved, Problem, problemText, Row, Title } from '../parts.js';
import { useTint } from '../theme.js';
import { useKeys } from '../use-keys.js';

export type SearchMode = 'grep' | 'ranked';

export interface Hit {
  readonly path: string;
  readonly line: number;
  readonly text: string;
}

export interface SearchScreenProps {
  readonly satchel: Satchel;
  readonly workspace: string;
  readonly active: boolean;
  readonly height: number;
  readonly onOpen: (path: string, line: number) => void;
  readonly onBack: () => void;
}

async function find(satchel: Satchel, ws: string, mode: SearchMode, query: string) {
  if (mode === 'grep') {
    const result = await satchel.grep(ws, query, { caseSensitive: false, limit: 500 });
    const hits: Hit[] = result.hits.map((h) => ({ path: h.path, line: h.line, text: h.text }));
    const cut = result.truncated ? ` (stopped: ${result.reason ?? 'budget'})` : '';
    return { hits, summary: `${hits.length} lines in ${result.filesScanned} files${cut}` };
  }
  const result = await satchel.search(ws, query, { limit: 50 });
  const hits: Hit[] = result.items.map((h) => ({
    path: h.citation.path,
    line: h.citation.lineStart,
    text: h.snippet.replace(/\s+/g, ' '),
  }));
  const lag = result.headSeq - result.indexedSeq;
  return {
    hits,
    summary: `${hits.length} passages (${result.mode})${lag > 0 ? `, index ${lag} behind` : ''}`,
  };
}

/** Control characters have no place in a one-line query. */
function stripControls(text: string): string {
  return [...text].filter((c) => c >= ' ' && c !== '\u007f').join('');
}

export function hitLines(hits: readonly Hit[]): string[] {
  return table(hits.map((h) => [`${h.path}:${h.line}`, h.text.replace(/\t/g, ' ').trim()]));
}

export function SearchScreen({
  satchel,
  workspace: ws,
  active,
  height,
  onOpen,
  onBack,
}: SearchScreenProps) {
  const tint = useTint();
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState<SearchMode>('grep');
  const [editing, setEditing] = useState(true);
  const [hits, setHits] = useState<readonly Hit[] | null>(null);
  const [summary, setSummary] = useState('');
  const [busy, setBusy] = useState(false);
  const [selected, setSelected] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);
  useCaptureKeys(active && editing);

  const runSearch = (text: string) => {
    if (text.trim() === '') return;
    setBusy(true);
    setProblem(null);
    find(satchel, ws, mode, text)
      .then(
        (found) => {
          setHits(found.hits);
          setSummary(found.summary);
          setSelected(0);
          if (found.hits.length > 0) setEditing(false);
        },
        (error: unknown) => setProblem(problemText(error)),
      )
      .finally(() => setBusy(false));
  };

  useKeys((input, key) => {
    if (editing) {
      if (key.return) runSearch(query);
      else if (key.tab) setMode((m) => (m === 'grep' ? 'ranked' : 'grep'));
      else if (key.escape) {
        if (hits !== null && hits.length > 0) setEditing(false);
        else onBack();
      } else if (key.downArrow && hits !== null && hits.length > 0) setEditing(false);
      else if (key.backspace || key.delete) setQuery((q) => q.slice(0, -1));
      else if (input !== '' && !key.ctrl && !key.meta) {
        // Fast typing and pastes arrive as one chunk, a final Enter included.
        const [typed = '', ...after] = input.split(/[\r\n]/);
        const text = query + stripControls(typed);
        setQuery(text);
        if (after.length > 0) runSearch(text);
      }
      return;
    }
    const next = moved(input, key, selected, hits?.length ?? 0, height - 5);
    const hit = hits?.[selected];
    if (next !== null) setSelected(next);
    else if (key.return && hit !== undefined) onOpen(hit.path, hit.line);
    else if (input === '/' || input === 'i' || key.tab) setEditing(true);
    else if (key.escape) onBack();
  }, active);

  const label = mode === 'grep' ? 'grep' : 'ranked search';
  return (
    <Box flexDirection="column" height={height}>
      <Title text={`Search ${ws}`} note={`${label} · tab switches`} />
      <Text wrap="truncate-start">
        <Text color={editing ? tint('cyan') : undefined} bold={editing}>
          {`${label}> ${query}`}
        </Text>
        {editing ? <Text inverse> </Text> : null}
      </Text>
      <Row text={busy ? 'searching…' : hits === null ? ' ' : summary} dim />
      <Box flexGrow={1} flexDirection="column">
        <List
          rows={hitLines(hits ?? [])}
          selected={selected}
          height={Math.max(1, height - 5)}
          focused={!editing}
          empty={hits === null ? 'type, then enter' : 'no matches'}
        />
      </Box>
      <Problem message={problem} />
      <Hints
        items={
          editing
            ? [
                ['enter', 'search'],
                ['tab', 'grep/ranked'],
                ['↓', 'results'],
                ['esc', 'back'],
              ]
            : [
                ['↑↓', 'move'],
                ['enter', 'open'],
                ['/', 'edit query'],
                ['esc', 'files'],
              ]
        }
      />
    </Box>
  );
}
