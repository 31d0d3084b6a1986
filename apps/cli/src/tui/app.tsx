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

type TabScreen = 'locks' | 'activity' | 'audit' | 'search';

export type Route =
  | { readonly screen: 'workspaces' }
  | { readonly screen: 'files'; readonly workspace: string; readonly reveal?: Reveal }
  | { readonly screen: 'history'; readonly workspace: string; readonly path: string }
  // One member per tab screen, so that a screen's name picks its route.
  | { readonly [S in TabScreen]: { readonly screen: S; readonly workspace: string } }[TabScreen];

type ScreenName = Route['screen'];
type RouteTo<S extends ScreenName> = Extract<Route, { readonly screen: S }>;

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

/** What the root gives every screen: the props they all take, and the way to another route. */
interface Nav {
  readonly shared: { readonly satchel: Satchel; readonly active: boolean; readonly height: number };
  readonly width: number;
  readonly go: (route: Route) => void;
  readonly app: AppProps;
}

/** The props of a tab screen: the shared ones, its workspace, and Esc back to the files. */
function tabProps(route: { readonly workspace: string }, { shared, go }: Nav) {
  const { workspace } = route;
  return { ...shared, workspace, onBack: () => go({ screen: 'files', workspace }) };
}

/** Each screen by name: its component, given the shared props and those only it takes. */
const SCREENS: { readonly [S in ScreenName]: (route: RouteTo<S>, nav: Nav) => ReactNode } = {
  workspaces: (_, { shared, go }) => (
    <WorkspacesScreen {...shared} onOpen={(workspace) => go({ screen: 'files', workspace })} />
  ),
  files: ({ workspace, reveal }, { shared, go, width }) => (
    <BrowserScreen
      key={`${workspace}:${reveal?.path ?? ''}:${reveal?.line ?? ''}`}
      {...shared}
      workspace={workspace}
      width={width}
      reveal={reveal}
      onBack={() => go({ screen: 'workspaces' })}
      onHistory={(path) => go({ screen: 'history', workspace, path })}
    />
  ),
  history: ({ workspace, path }, { shared, go }) => (
    <HistoryScreen
      {...shared}
      workspace={workspace}
      path={path}
      onBack={() => go({ screen: 'files', workspace, reveal: { path } })}
    />
  ),
  locks: (route, nav) => <LocksScreen {...tabProps(route, nav)} pollMs={nav.app.lockPollMs} />,
  activity: (route, nav) => (
    <ActivityScreen {...tabProps(route, nav)} waitSeconds={nav.app.changeWaitSeconds} />
  ),
  audit: (route, nav) => <AuditScreen {...tabProps(route, nav)} />,
  search: (route, nav) => (
    <SearchScreen
      {...tabProps(route, nav)}
      onOpen={(path, line) =>
        nav.go({ screen: 'files', workspace: route.workspace, reveal: { path, line } })
      }
    />
  ),
};

/** The screen `route` names, rendered by its entry in SCREENS. */
function renderScreen<S extends ScreenName>(route: RouteTo<S>, nav: Nav): ReactNode {
  const render: (route: RouteTo<S>, nav: Nav) => ReactNode = SCREENS[route.screen];
  return render(route, nav);
}

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
  const body = renderScreen(route, {
    shared: { satchel, active: !help, height },
    width: columns,
    go: setRoute,
    app: props,
  });

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
