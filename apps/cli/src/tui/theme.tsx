/** Colour in the terminal UI: on unless NO_COLOR is set (or the output is not a terminal). */
import { createContext, useContext } from 'react';

export interface Theme {
  /** False under NO_COLOR: components then use only bold, dim and inverse. */
  readonly color: boolean;
}

export const ThemeContext = createContext<Theme>({ color: true });

/** `tint('green')` is `'green'` when colour is on, else `undefined` (Ink's "no colour"). */
export function useTint(): (name: string) => string | undefined {
  const { color } = useContext(ThemeContext);
  return (name) => (color ? name : undefined);
}
