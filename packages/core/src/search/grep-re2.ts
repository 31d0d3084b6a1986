/**
 * Matchers of every MatcherSpec, RE2 patterns included (re2js): what a grep worker builds
 * (grep-worker.ts). The calling thread only ever matches literals (grep-scan.ts).
 */
import { RE2JS } from 're2js';
import { literalMatcher, type Matcher, type MatcherSpec } from './grep-scan.js';

/**
 * Builds the matcher of `spec`. Throws re2js's error for a pattern RE2 cannot compile (grep.ts
 * has a worker compile each pattern first, and turns that into INVALID_INPUT).
 */
export function buildMatcher(spec: MatcherSpec): Matcher {
  if (spec.kind === 'literal') return literalMatcher(spec.text);
  const line = RE2JS.compile(spec.source, spec.flags);
  // Multi-line: ^ and $ also match at line breaks, so a match in a line is one in the file.
  const file = RE2JS.compile(spec.source, spec.flags | RE2JS.MULTILINE);
  return {
    fixed: spec.fixed,
    programSize: line.programSize(),
    anywhere: (text) => file.test(text),
    find: (text) => {
      const m = line.matcher(text);
      return m.find() ? [m.start(), m.end()] : null;
    },
  };
}
