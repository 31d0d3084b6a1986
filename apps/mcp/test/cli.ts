/** Test support: the built `satchel` binary (apps/cli/dist/main.js), run as a real process. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Path of the built CLI; throws with what to run when it has not been built. */
export function cliMain(): string {
  const main = join(repo, 'apps', 'cli', 'dist', 'main.js');
  if (!existsSync(main)) {
    throw new Error(
      `${main} is missing: build the CLI first (pnpm --filter @satchel/cli... build)`,
    );
  }
  return main;
}
