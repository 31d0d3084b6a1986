/**
 * Glob matching of workspace paths relative to a directory, with the options `list({glob})` uses
 * (picomatch, dotfiles included), and gitignore-like exclusion lists for frontends that filter.
 */
import picomatch from 'picomatch';
import { SatchelError } from './errors.js';

/** The index of a "[" that no "]" closes (escaped characters skipped), or -1. */
function unclosedBracket(pattern: string): number {
  let open = -1;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '[' && open === -1) open = i;
    else if (c === ']') open = -1;
  }
  return open;
}

/**
 * A matcher of paths relative to a directory ("a/b.md", no leading slash) against `pattern`.
 * INVALID_INPUT for a "[" that nothing closes: picomatch would take it literally and match
 * nothing, which reads as "no such files" rather than as a typo.
 */
export function globMatcher(pattern: string): (relativePath: string) => boolean {
  const at = unclosedBracket(pattern);
  if (at !== -1) {
    throw new SatchelError(
      'INVALID_INPUT',
      `invalid glob ${JSON.stringify(pattern)}: the "[" at position ${at + 1} is never closed (write \\[ for a literal bracket)`,
      { field: 'glob', reason: 'invalid_glob' },
    );
  }
  return picomatch(pattern.replace(/^\/+/, ''), { dot: true });
}

/**
 * True for a relative path excluded by any of `patterns`, or lying beneath an excluded
 * directory. A pattern without "/" is matched against every segment ("node_modules", "*.log");
 * one with "/" against the path and each of its ancestors ("build/**", "docs/drafts").
 */
export function excludeMatcher(patterns: readonly string[]): (relativePath: string) => boolean {
  const bySegment = patterns.filter((p) => !p.replace(/^\/+/, '').includes('/')).map(globMatcher);
  const byPath = patterns.filter((p) => p.replace(/^\/+/, '').includes('/')).map(globMatcher);
  if (bySegment.length === 0 && byPath.length === 0) return () => false;
  return (relativePath) => {
    const segments = relativePath.split('/');
    if (segments.some((segment) => bySegment.some((match) => match(segment)))) return true;
    for (let i = 1; i <= segments.length; i++) {
      const prefix = segments.slice(0, i).join('/');
      if (byPath.some((match) => match(prefix))) return true;
    }
    return false;
  };
}
