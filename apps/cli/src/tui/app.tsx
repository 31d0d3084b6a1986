/**
 * The terminal UI's root: which screen is shown, the `?` help and `q` to quit. Every screen
 * talks to Satchel only through the `Satchel` interface, so the UI works the same on a data
 * directory and against a server (SATCHEL_URL).
 */
import type { Satchel } from '@satchel/core';
import { Box, Text, useApp } from 'ink';
import { type ReactNode, useRef, useState } from 'react';
import { ActivityScreen } from './activity/activity-screen.js';
import { AuditScreen } from './audit/audit-screen.js';
import { BrowserScreen, type Reveal } from './browser/browser-screen.js';
import { CaptureContext } from './capture.js';
import { Help } from './help.js';
import { HistoryScreen } from './history/history-screen.js';
import { LocksScreen } from './locks/locks-screen.js';
import { SearchScreen } from './search/search-screen.js';
import { useTerminalSize } from './terminal-size.js';
import { ThemeContext } from './theme.js';
import { useKeys } from './use-keys.js';
import { WorkspacesScreen } from './workspaces/workspaces-screen.js';

export type Route =
  | { readonly screen: 'workspaces' }
  | { readonly screen: 'files'; readonly workspace: string; readonly reveal?: Reveal }
  | { readonly screen: 'history'; readonly workspace: string; readonly path: string }
  | {
      readonly screen: 'locks' | 'activity' | 'audit' | 'search';
      readonly workspace: string;
    };

export interface AppProps {
  readonly satchel: Satchel;
  /** Open this workspace's files directly (`-w`, SATCHEL_WORKSPACE). */
  readonly workspace?: string;
  /** False under NO_COLOR. */
  readonly color?: boolean;
  /** Where the session runs, shown in the header: a data directory or a server URL. */
  readonly where?: string;
  /** Locks view refresh interval (default 3000 ms). */
  readonly lockPollMs?: number;
  /** Activity long-poll length (default 20 s). */
  readonly changeWaitSeconds?: number;
}

const TABS = [
  ['1', 'files', 'Files'],
  ['2', 'locks', 'Locks'],
  ['3', 'activity', 'Activity'],
  ['4', 'audit', 'Audit'],
  ['/', 'search', 'Search'],
] as const;

function Header({ route, where }: { readonly route: Route; readonly where?: string }) {
  const ws = route.screen === 'workspaces' ? null : route.workspace;
  return (
    <Text wrap="truncate-end">
      <Text bold>satchel</Text>
      {ws === null ? (
        <Text dimColor> workspaces</Text>
      ) : (
        <>
          <Text>{` ${ws} `}</Text>
          {TABS.map(([key, screen, label]) => {
            const on =
              route.screen === screen || (screen === 'files' && route.screen === 'history');
            return <Text key={screen} inverse={on} dimColor={!on}>{` ${key} ${label} `}</Text>;
          })}
        </>
      )}
      <Text dimColor>{`  ${where === undefined ? '' : `${where}  `}? keys  q quit`}</Text>
    </Text>
  );
}

export function App(props: AppProps) {
  const { satchel } = props;
  const { exit } = useApp();
  const { columns, rows } = useTerminalSize();
  const [route, setRoute] = useState<Route>(
    props.workspace === undefined
      ? { screen: 'workspaces' }
      : { screen: 'files', workspace: props.workspace },
  );
  const [help, setHelp] = useState(false);
  const captured = useRef(false);

  const ws = route.screen === 'workspaces' ? null : route.workspace;
  useKeys((input, key) => {
    if (help) {
      if (input === '?' || key.escape) setHelp(false);
      else if (input === 'q') exit();
      return;
    }
    if (captured.current) return;
    if (input === 'q') exit();
    else if (input === '?') setHelp(true);
    else if (ws !== null) {
      const tab = TABS.find(([k]) => k === input);
      if (tab !== undefined) setRoute({ screen: tab[1], workspace: ws });
      else if (input === 'w') setRoute({ screen: 'workspaces' });
    }
  });

  // One row for the header; one spare so Ink never fills the screen (it would clear it and
  // redraw everything on each frame, which flickers).
  const height = Math.max(4, rows - 2);
  const active = !help;
  const files = (workspace: string) => setRoute({ screen: 'files', workspace });
  let body: ReactNode;
  switch (route.screen) {
    case 'workspaces':
      body = (
        <WorkspacesScreen
          satchel={satchel}
          active={active}
          height={height}
          onOpen={(workspace) => files(workspace)}
        />
      );
      break;
    case 'files':
      body = (
        <BrowserScreen
          key={`${route.workspace}:${route.reveal?.path ?? ''}:${route.reveal?.line ?? ''}`}
          satchel={satchel}
          workspace={route.workspace}
          active={active}
          height={height}
          width={columns}
          reveal={route.reveal}
          onBack={() => setRoute({ screen: 'workspaces' })}
          onHistory={(path) => setRoute({ screen: 'history', workspace: route.workspace, path })}
        />
      );
      break;
    case 'history':
      body = (
        <HistoryScreen
          satchel={satchel}
          workspace={route.workspace}
          path={route.path}
          active={active}
          height={height}
          onBack={() =>
            setRoute({ screen: 'files', workspace: route.workspace, reveal: { path: route.path } })
          }
        />
      );
      break;
    case 'locks':
      body = (
        <LocksScreen
          satchel={satchel}
          workspace={route.workspace}
          active={active}
          height={height}
          pollMs={props.lockPollMs}
          onBack={() => files(route.workspace)}
        />
      );
      break;
    case 'activity':
      body = (
        <ActivityScreen
          satchel={satchel}
          workspace={route.workspace}
          active={active}
          height={height}
          waitSeconds={props.changeWaitSeconds}
          onBack={() => files(route.workspace)}
        />
      );
      break;
    case 'audit':
      body = (
        <AuditScreen
          satchel={satchel}
          workspace={route.workspace}
          active={active}
          height={height}
          onBack={() => files(route.workspace)}
        />
      );
      break;
    case 'search':
      body = (
        <SearchScreen
          satchel={satchel}
          workspace={route.workspace}
          active={active}
          height={height}
          onOpen={(path, line) =>
            setRoute({ screen: 'files', workspace: route.workspace, reveal: { path, line } })
          }
          onBack={() => files(route.workspace)}
        />
      );
      break;
  }

  return (
    <ThemeContext.Provider value={{ color: props.color !== false }}>
      <CaptureContext.Provider value={captured}>
        <Box flexDirection="column" width={columns} height={height + 1}>
          <Header route={route} where={props.where} />
          {help ? <Help height={height} /> : null}
          {/* Hidden, not unmounted, under the help: the screen keeps its state. */}
          <Box display={help ? 'none' : 'flex'} flexDirection="column">
            {body}
          </Box>
        </Box>
      </CaptureContext.Provider>
    </ThemeContext.Provider>
  );
}
