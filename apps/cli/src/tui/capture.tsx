/**
 * Who gets the keys: while a screen edits text or asks for confirmation it captures the
 * keyboard, and the root's global keys (`q`, `?`, screen numbers) stand aside. The flag is set
 * during render, so it holds for the very next key.
 */
import { createContext, type RefObject, useContext, useEffect } from 'react';

export const CaptureContext = createContext<RefObject<boolean>>({ current: false });

/** Captures the keyboard while `captured` is true (and releases it on unmount). */
export function useCaptureKeys(captured: boolean): void {
  const flag = useContext(CaptureContext);
  flag.current = captured;
  useEffect(
    () => () => {
      flag.current = false;
    },
    [flag],
  );
}
