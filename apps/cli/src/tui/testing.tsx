/** Test helpers for the terminal UI: render the App over a Satchel, press keys, await frames. */
import type { Satchel } from '@satchel/core';
import { render } from 'ink-testing-library';
import { expect, vi } from 'vitest';
import { App } from './app.js';

export const KEY = {
  up: '\u001b[A',
  down: '\u001b[B',
  right: '\u001b[C',
  left: '\u001b[D',
  enter: '\r',
  escape: '\u001b',
  tab: '\t',
} as const;

export interface Tui {
  /** The frame now shown. */
  frame(): string;
  /**
   * Types keys one write each, at a (fast) typist's pace: React renders a state change a moment
   * after the key that caused it, and the next key should meet the screen that change shows
   * (after `/` the search box, which then keeps `q` as text).
   */
  press(...keys: string[]): Promise<void>;
  /** Waits until the frame contains every one of `texts`. */
  see(...texts: string[]): Promise<string>;
  unmount(): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function renderTui(satchel: Satchel, workspace?: string): Tui {
  const app = render(
    <App
      satchel={satchel}
      workspace={workspace}
      color={false}
      lockPollMs={100}
      changeWaitSeconds={2}
    />,
  );
  const frame = () => app.lastFrame() ?? '';
  return {
    frame,
    press: async (...keys) => {
      for (const key of keys) {
        // Each key after the frame the previous one caused (or 300 ms for keys that change
        // nothing), plus a beat for effects: a loaded machine can render late, and a key
        // that arrives first would meet the screen before it.
        const rendered = app.frames.length;
        app.stdin.write(key);
        const until = Date.now() + 300;
        while (app.frames.length === rendered && Date.now() < until) await sleep(5);
        await sleep(15);
      }
    },
    see: async (...texts) => {
      await vi.waitFor(
        () => {
          for (const text of texts) expect(frame()).toContain(text);
        },
        { timeout: 10_000, interval: 20 },
      );
      return frame();
    },
    unmount: () => app.unmount(),
  };
}
