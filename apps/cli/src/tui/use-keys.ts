/**
 * `useInput` with the newest handler always in place: the handler is read from a ref set
 * during render, so a key that arrives right after a frame (or two keys in one burst) meets
 * the state that frame shows, not the previous render's closure. Inactive screens get no keys.
 */
import { type Key, useInput } from 'ink';
import { useCallback, useRef } from 'react';

export type KeyHandler = (input: string, key: Key) => void;

export function useKeys(handler: KeyHandler, active = true): void {
  const latest = useRef({ handler, active });
  latest.current = { handler, active };
  useInput(
    useCallback((input: string, key: Key) => {
      if (latest.current.active) latest.current.handler(input, key);
    }, []),
  );
}
