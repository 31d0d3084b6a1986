/** The first screen: every workspace the caller may see; enter opens one in the file browser. */
import type { Satchel, Workspace, WorkspaceInfo } from '@satchel/core';
import { Box } from 'ink';
import { useEffect, useState } from 'react';
import { humanSize, shortTime, table } from '../../format.js';
import { Hints, List, moved, Problem, problemText, Row, Title } from '../parts.js';
import { useKeys } from '../use-keys.js';

export interface WorkspacesScreenProps {
  readonly satchel: Satchel;
  readonly active: boolean;
  readonly height: number;
  readonly onOpen: (workspace: string) => void;
}

interface WorkspacesViewProps {
  readonly items: readonly Workspace[] | null;
  readonly selected: number;
  readonly info: WorkspaceInfo | null;
  readonly problem: string | null;
  readonly height: number;
}

/** The list and the facts of the selected workspace. */
export function WorkspacesView({ items, selected, info, problem, height }: WorkspacesViewProps) {
  const rows = table(
    (items ?? []).map((w) => [w.name, `seq ${w.seq}`, `created ${shortTime(w.createdAt)}`]),
  );
  return (
    <Box flexDirection="column" height={height}>
      <Title text="Workspaces" note={items === null ? 'loading…' : `${items.length}`} />
      <Box flexDirection="column" flexGrow={1}>
        <List
          rows={rows}
          selected={selected}
          height={Math.max(1, height - 5)}
          empty="no workspaces yet: create one with `satchel ws create NAME`"
        />
      </Box>
      <Row
        text={
          info === null
            ? ' '
            : `${info.name}: ${info.files} files, ${info.directories} directories, ` +
              `${humanSize(info.bytes)}, ${info.versions} versions, indexing ${info.settings.indexing}`
        }
        dim
      />
      <Problem message={problem} />
      <Hints
        items={[
          ['↑↓', 'move'],
          ['enter', 'open'],
          ['r', 'refresh'],
        ]}
      />
    </Box>
  );
}

/** State of the workspaces screen: the list, the selection and the selected one's facts. */
export function WorkspacesScreen({ satchel, active, height, onOpen }: WorkspacesScreenProps) {
  const [items, setItems] = useState<Workspace[] | null>(null);
  const [selected, setSelected] = useState(0);
  const [info, setInfo] = useState<WorkspaceInfo | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [reload, setReload] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `reload` re-runs it on demand (r)
  useEffect(() => {
    let live = true;
    satchel.listWorkspaces({ limit: 1000 }).then(
      (page) => {
        if (!live) return;
        setItems(page.items);
        setProblem(null);
      },
      (error: unknown) => live && setProblem(problemText(error)),
    );
    return () => {
      live = false;
    };
  }, [satchel, reload]);

  const name = items?.[selected]?.name;
  useEffect(() => {
    if (name === undefined) return;
    let live = true;
    satchel.getWorkspace(name).then(
      (found) => live && setInfo(found),
      () => live && setInfo(null),
    );
    return () => {
      live = false;
    };
  }, [satchel, name]);

  useKeys((input, key) => {
    const count = items?.length ?? 0;
    const next = moved(input, key, selected, count, height - 5);
    if (next !== null) setSelected(next);
    else if (key.return && name !== undefined) onOpen(name);
    else if (input === 'r') setReload((n) => n + 1);
  }, active);

  return (
    <WorkspacesView
      items={items}
      selected={selected}
      info={info}
      problem={problem}
      height={height}
    />
  );
}
