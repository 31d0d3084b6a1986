/**
 * The workspace's activity, fed live by the change feed: a long poll (`listChanges` with
 * `waitSeconds`) that returns as soon as anything changes. Newest first: when, who, what.
 * `u` on a change made in a session previews undoing that session (UndoPanel).
 */
import type { ChangeEvent, Satchel } from '@satchel/core';
import { Box } from 'ink';
import { useEffect, useState } from 'react';
import { humanSize, shortTime, table } from '../../format.js';
import { Hints, List, moved, Problem, problemText, Row, Title } from '../parts.js';
import { useTint } from '../theme.js';
import { useKeys } from '../use-keys.js';
import { UndoPanel } from './undo-panel.js';

/** Events kept on screen; older ones scroll away. */
const KEEP = 500;
/** How far back the screen starts: the last changes before it opened. */
const BACKLOG = 100;

export interface ActivityScreenProps {
  readonly satchel: Satchel;
  readonly workspace: string;
  readonly active: boolean;
  readonly height: number;
  /** Long-poll length (default 20 s; the feed answers at once when something changes). */
  readonly waitSeconds?: number;
  readonly onBack: () => void;
}

export function activityLines(events: readonly ChangeEvent[]): string[] {
  return table(
    events.map((e) => [
      shortTime(e.time),
      e.session === null ? e.actor : `${e.actor} [${e.session}]`,
      e.deleted ? 'delete' : e.type,
      `${e.path}${e.kind === 'directory' ? '/' : ''}`,
      `v${e.version}`,
      e.deleted || e.kind === 'directory' ? '' : humanSize(e.size),
    ]),
    ['left', 'left', 'left', 'left', 'right', 'right'],
  );
}

export function ActivityScreen({
  satchel,
  workspace: ws,
  active,
  height,
  waitSeconds = 20,
  onBack,
}: ActivityScreenProps) {
  const [events, setEvents] = useState<readonly ChangeEvent[]>([]);
  const [selected, setSelected] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);
  const [following, setFollowing] = useState(false);
  const [undoing, setUndoing] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const tint = useTint();

  useEffect(() => {
    let live = true;
    const follow = async () => {
      let after = 0;
      try {
        after = Math.max(0, (await satchel.getWorkspace(ws)).seq - BACKLOG);
      } catch (error) {
        if (live) setProblem(problemText(error));
        return;
      }
      while (live) {
        try {
          const page = await satchel.listChanges(ws, { after, waitSeconds, limit: 100 });
          if (!live) return;
          after = page.cursor;
          setFollowing(true);
          setProblem(null);
          if (page.events.length > 0) {
            const newest = [...page.events].reverse();
            setEvents((old) => [...newest, ...old].slice(0, KEEP));
          }
        } catch (error) {
          if (!live) return;
          setProblem(problemText(error));
          await new Promise((resolve) => setTimeout(resolve, 2000));
        }
      }
    };
    void follow();
    return () => {
      live = false;
    };
  }, [satchel, ws, waitSeconds]);

  useKeys(
    (input, key) => {
      const next = moved(input, key, selected, events.length, height - 3);
      if (next !== null) setSelected(next);
      else if (input === 'u') {
        const session = events[selected]?.session ?? null;
        if (session === null) setNotice('this change was made outside a session: nothing to undo');
        else {
          setNotice(null);
          setUndoing(session);
        }
      } else if (key.escape) onBack();
    },
    active && undoing === null,
  );

  if (undoing !== null) {
    return (
      <UndoPanel
        satchel={satchel}
        workspace={ws}
        session={undoing}
        active={active}
        height={height}
        onClose={() => setUndoing(null)}
        onDone={(message) => {
          setUndoing(null);
          setSelected(0);
          setNotice(message);
        }}
      />
    );
  }

  return (
    <Box flexDirection="column" height={height}>
      <Title
        text={`Activity in ${ws}`}
        note={following ? `${events.length} changes · live` : 'connecting…'}
      />
      <Box flexGrow={1} flexDirection="column">
        <List
          rows={activityLines(events)}
          selected={selected}
          height={Math.max(1, height - 3)}
          empty="no changes yet: they appear here as they happen"
        />
      </Box>
      {notice !== null && problem === null ? (
        <Row text={notice} color={tint('green')} />
      ) : (
        <Problem message={problem} />
      )}
      <Hints
        items={[
          ['↑↓', 'move'],
          ['u', "undo the change's session"],
          ['esc', 'files'],
        ]}
      />
    </Box>
  );
}
