/** The CLI's environment variables, read in one place from an explicit env object. */

export interface CliEnv {
  /** Data directory of the embedded engine, as given (resolved against the cwd by the caller). */
  readonly data: string;
  readonly workspace: string | undefined;
  readonly session: string | undefined;
  /** https://no-color.org: any non-empty value disables colour. */
  readonly noColor: boolean;
  /** SATCHEL_DEBUG=1 prints stack traces of internal errors. */
  readonly debug: boolean;
  /** Bind address of `satchel serve` (SATCHEL_HOST). */
  readonly host: string;
  /** Port of `satchel serve` as given (SATCHEL_PORT); `serve` validates it. */
  readonly port: string;
  /** A server to talk to instead of a data directory (SATCHEL_URL). */
  readonly url: string | undefined;
  /** API key for `url` (SATCHEL_TOKEN). */
  readonly token: string | undefined;
}

export const DEFAULT_DATA = './.satchel';
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8787;

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

export function readEnv(env: Readonly<Record<string, string | undefined>>): CliEnv {
  return {
    data: nonEmpty(env.SATCHEL_DATA) ?? DEFAULT_DATA,
    workspace: nonEmpty(env.SATCHEL_WORKSPACE),
    session: nonEmpty(env.SATCHEL_SESSION),
    noColor: nonEmpty(env.NO_COLOR) !== undefined,
    debug: env.SATCHEL_DEBUG === '1',
    host: nonEmpty(env.SATCHEL_HOST) ?? DEFAULT_HOST,
    port: nonEmpty(env.SATCHEL_PORT) ?? String(DEFAULT_PORT),
    url: nonEmpty(env.SATCHEL_URL),
    token: nonEmpty(env.SATCHEL_TOKEN),
  };
}
