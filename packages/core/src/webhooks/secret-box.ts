/**
 * Signing secrets at rest. A webhook's secret must be recovered to sign each delivery, so it
 * cannot be hashed like an API key: it is sealed with AES-256-GCM under a key kept beside the
 * database (`<data>/webhook.key`, mode 0600, created on first need), bound to its webhook's id.
 * A copy of the database alone reveals no secret; back the key file up with the data directory.
 * Nodes that share one database share one key instead: `SATCHEL_WEBHOOK_KEY` (docs/deploy.md).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { link, open, readFile, unlink } from 'node:fs/promises';
import { SatchelError } from '@satchel/client/errors.js';

/** The key file inside the data directory. */
export const WEBHOOK_KEY_FILE = 'webhook.key';

const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A new Standard Webhooks secret: `whsec_` and the base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** Reads the key file, or creates it (atomically: a racing process's key wins, never a torn one). */
async function loadOrCreateKey(file: string): Promise<Buffer> {
  const existing = await readKey(file);
  if (existing) return existing;
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fh = await open(temp, 'wx', 0o600);
  try {
    await fh.writeFile(`${randomBytes(KEY_BYTES).toString('base64')}\n`);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    // link() fails if the file exists: the key written first is the one everybody uses.
    await link(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(temp);
  }
  const key = await readKey(file);
  if (!key) throw badKey(file);
  return key;
}

async function readKey(file: string): Promise<Buffer | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES) throw badKey(file);
  return key;
}

function badKey(file: string): SatchelError {
  return new SatchelError('INTERNAL', `${file} is not a webhook key (32 bytes, base64)`, {
    file,
  });
}

/**
 * A webhook key given as configuration (base64 of 32 bytes), e.g. `SATCHEL_WEBHOOK_KEY`;
 * INVALID_INPUT naming `source` otherwise.
 */
export function parseWebhookKey(text: string, source: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES) {
    throw new SatchelError(
      'INVALID_INPUT',
      `${source} must be the base64 of ${KEY_BYTES} random bytes (e.g. \`openssl rand -base64 32\`)`,
      { field: source },
    );
  }
  return key;
}

/** Seals and opens webhook secrets with the data directory's key (or a per-process one). */
export class SecretBox {
  #key: Promise<Buffer> | null = null;

  readonly #source: string;

  /**
   * Where the key comes from: `key` (configuration, e.g. `SATCHEL_WEBHOOK_KEY`), a key `file`
   * created on first need, or neither: a random key for this process only (in-memory engines).
   */
  constructor(private readonly from: { key?: Buffer; file?: string } = {}) {
    this.#source = from.key ? 'the configured webhook key' : (from.file ?? 'the process key');
    if (from.key) this.#key = Promise.resolve(from.key);
  }

  #keyOnce(): Promise<Buffer> {
    if (this.#key === null) {
      const { file } = this.from;
      this.#key =
        file === undefined ? Promise.resolve(randomBytes(KEY_BYTES)) : loadOrCreateKey(file);
      // A failed load is retried on the next use instead of being remembered forever.
      this.#key.catch(() => {
        this.#key = null;
      });
    }
    return this.#key;
  }

  /** Names the key without revealing it: the first 16 hex digits of SHA-256 over a label and it. */
  async fingerprint(): Promise<string> {
    const key = await this.#keyOnce();
    return createHash('sha256')
      .update('satchel webhook key\0')
      .update(key)
      .digest('hex')
      .slice(0, 16);
  }

  /** `v1:<base64 of iv ‖ tag ‖ ciphertext>`, authenticated together with `context`. */
  async seal(plaintext: string, context: string): Promise<string> {
    const key = await this.#keyOnce();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** The plaintext; INTERNAL when it was sealed with another key or for another context. */
  async open(sealed: string, context: string): Promise<string> {
    const key = await this.#keyOnce();
    const [version, encoded] = sealed.split(':');
    const raw = Buffer.from(encoded ?? '', 'base64');
    if (version !== VERSION || raw.length < IV_BYTES + TAG_BYTES) throw this.#unreadable(context);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const text = Buffer.concat([
        decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]);
      return text.toString('utf8');
    } catch {
      throw this.#unreadable(context);
    }
  }

  #unreadable(context: string): SatchelError {
    return new SatchelError(
      'INTERNAL',
      `cannot decrypt the signing secret of webhook ${context}: ${this.#source} ` +
        'is not the key it was sealed with (restore the data directory’s webhook.key)',
      { webhook: context },
    );
  }
}
