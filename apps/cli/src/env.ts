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
  /**
   * PostgreSQL database for the engine's metadata instead of the data directory's SQLite file
   * (SATCHEL_DATABASE_URL); content stays in the data directory.
   */
  readonly databaseUrl: string | undefined;
  /**
   * Content store instead of `<data>/blobs` (SATCHEL_BLOBS): `s3://bucket/prefix` (endpoint,
   * region and credentials from the AWS SDK's variables) or a directory.
   */
  readonly blobs: string | undefined;
  /**
   * The key webhook signing secrets are sealed with, base64 of 32 bytes (SATCHEL_WEBHOOK_KEY);
   * unset: `<data>/webhook.key`. Every node of a shared database needs the same one.
   */
  readonly webhookKey: string | undefined;
  /** A server to talk to instead of a data directory (SATCHEL_URL). */
  readonly url: string | undefined;
  /** API key for `url` (SATCHEL_TOKEN). */
  readonly token: string | undefined;
  /** Embedding provider for hybrid search (SATCHEL_EMBEDDINGS_URL, _MODEL, _KEY). */
  readonly embeddings: ProviderEnv | undefined;
  /** Language model for `ask` (SATCHEL_LLM_URL, _MODEL, _KEY). */
  readonly llm: ProviderEnv | undefined;
  /** Hosts and CIDRs webhooks may reach although not public (SATCHEL_WEBHOOK_ALLOW, comma-separated). */
  readonly webhookAllow: string[] | undefined;
  /** Per-key rate limit of `satchel serve` as given (SATCHEL_RATE_LIMIT, `600/60s` or `off`). */
  readonly rateLimit: string | undefined;
  /** Log level of `satchel serve` as given (SATCHEL_LOG_LEVEL); `serve` validates it. */
  readonly logLevel: string | undefined;
  /** Header timeout of `satchel serve` as given (SATCHEL_HEADER_TIMEOUT, a duration). */
  readonly headerTimeout: string | undefined;
  /** Body idle timeout of `satchel serve` as given (SATCHEL_BODY_IDLE_TIMEOUT, a duration). */
  readonly bodyIdleTimeout: string | undefined;
  /** Host names `/mcp` of `satchel serve` answers to besides loopback (SATCHEL_ALLOWED_HOSTS). */
  readonly allowedHosts: string[] | undefined;
  /** Uploads per key at once on `satchel serve` as given (SATCHEL_MAX_UPLOADS). */
  readonly maxUploads: string | undefined;
  /** Base URL of signed transfer URLs (SATCHEL_PUBLIC_URL): what people and agents reach. */
  readonly publicUrl: string | undefined;
  /**
   * The web app believes `X-Forwarded-Proto` (SATCHEL_TRUST_PROXY=1): a reverse proxy in front
   * terminates TLS, so session cookies are marked Secure (docs/web.md).
   */
  readonly trustProxy: boolean;
  /**
   * Files at least this large go to a server as resumable uploads (`put`, `sync`), as given
   * (SATCHEL_UPLOAD_THRESHOLD: bytes, or with a unit, `8MiB`); the context validates it.
   */
  readonly uploadThreshold: string | undefined;
  /** API key of CodeSandbox for `satchel sandbox run --provider codesandbox` (CSB_API_KEY). */
  readonly csbApiKey: string | undefined;
}

/** An OpenAI-compatible endpoint (SATCHEL_EMBEDDINGS_* or SATCHEL_LLM_*); set when its URL is. */
export interface ProviderEnv {
  readonly url: string;
  /** Required with the URL; the context refuses to run without it. */
  readonly model: string | undefined;
  readonly key: string | undefined;
}

export const DEFAULT_DATA = './.satchel';
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8787;

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function provider(
  env: Readonly<Record<string, string | undefined>>,
  prefix: string,
): ProviderEnv | undefined {
  const url = nonEmpty(env[`${prefix}_URL`]);
  if (url === undefined) return undefined;
  return { url, model: nonEmpty(env[`${prefix}_MODEL`]), key: nonEmpty(env[`${prefix}_KEY`]) };
}

/** `a, b,c` → ['a', 'b', 'c']; undefined when empty. */
export function commaList(value: string | undefined): string[] | undefined {
  const items = (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items.length === 0 ? undefined : items;
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
    databaseUrl: nonEmpty(env.SATCHEL_DATABASE_URL),
    blobs: nonEmpty(env.SATCHEL_BLOBS),
    webhookKey: nonEmpty(env.SATCHEL_WEBHOOK_KEY),
    url: nonEmpty(env.SATCHEL_URL),
    token: nonEmpty(env.SATCHEL_TOKEN),
    embeddings: provider(env, 'SATCHEL_EMBEDDINGS'),
    llm: provider(env, 'SATCHEL_LLM'),
    webhookAllow: commaList(env.SATCHEL_WEBHOOK_ALLOW),
    rateLimit: nonEmpty(env.SATCHEL_RATE_LIMIT),
    logLevel: nonEmpty(env.SATCHEL_LOG_LEVEL),
    headerTimeout: nonEmpty(env.SATCHEL_HEADER_TIMEOUT),
    bodyIdleTimeout: nonEmpty(env.SATCHEL_BODY_IDLE_TIMEOUT),
    maxUploads: nonEmpty(env.SATCHEL_MAX_UPLOADS),
    allowedHosts: commaList(env.SATCHEL_ALLOWED_HOSTS),
    csbApiKey: nonEmpty(env.CSB_API_KEY),
    publicUrl: nonEmpty(env.SATCHEL_PUBLIC_URL),
    trustProxy: env.SATCHEL_TRUST_PROXY === '1',
    uploadThreshold: nonEmpty(env.SATCHEL_UPLOAD_THRESHOLD),
  };
}
