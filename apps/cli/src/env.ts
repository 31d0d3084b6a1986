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
}

export const DEFAULT_DATA = './.satchel';

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
  };
}
