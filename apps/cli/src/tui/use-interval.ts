/** Calls `tick` every `ms` while mounted (and once at once): the screens' polling clock. */
import { useEffect, useRef } from 'react';

export function useInterval(tick: () => void, ms: number): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    latest.current();
    const timer = setInterval(() => latest.current(), ms);
    return () => clearInterval(timer);
  }, [ms]);
}
