/**
 * Glob matching of workspace paths relative to a directory, with the options `list({glob})` uses
 * (picomatch, dotfiles included), and gitignore-like exclusion lists for frontends that filter.
 */
import picomatch from 'picomatch';

/** A matcher of paths relative to a directory ("a/b.md", no leading slash) against `pattern`. */
export function globMatcher(pattern: string): (relativePath: string) => boolean {
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
