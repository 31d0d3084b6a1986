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
        await new Promise((resolve) => setTimeout(resolve, 25));
        app.stdin.write(key);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
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
