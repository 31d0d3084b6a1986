/**
 * The SSRF guard of webhooks: a URL must be http(s) without credentials, and every address its
 * host resolves to must be ordinary public unicast — not loopback, private, link-local (cloud
 * metadata at 169.254.169.254), unique-local, carrier-grade NAT, reserved, multicast or
 * unspecified, nor an IPv6 form that carries an IPv4 address (mapped, compatible, translated,
 * NAT64, 6to4, Teredo) — unless the server's allow-list names the host
 * or the address. Checked when a webhook is created or changed, and again at every delivery on
 * the very address the connection uses (`guardedLookup`), so DNS rebinding cannot slip through.
 */
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { SatchelError } from '@satchel/client/errors.js';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Hosts and CIDRs the server may deliver to even though they are not public (`--webhook-allow`). */
export class AllowList {
  private constructor(
    private readonly hosts: ReadonlySet<string>,
    private readonly ranges: readonly [Address, number][],
  ) {}

  /** INVALID_INPUT naming the first entry that is neither a host name, an address nor a CIDR. */
  static parse(entries: readonly string[] = []): AllowList {
    const hosts = new Set<string>();
    const ranges: [Address, number][] = [];
    for (const raw of entries) {
      const entry = raw
        .trim()
        .toLowerCase()
        .replace(/^\[|\]$/g, '');
      if (entry === '') continue;
      if (entry.includes('/')) {
        if (!ipaddr.isValidCIDR(entry)) throw badEntry(raw);
        const [address, bits] = ipaddr.parseCIDR(entry);
        ranges.push([address, bits]);
      } else if (ipaddr.isValid(entry)) {
        const address = ipaddr.process(entry);
        ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
      } else if (
        /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/.test(entry)
      ) {
        hosts.add(entry.replace(/\.$/, ''));
      } else {
        throw badEntry(raw);
      }
    }
    return new AllowList(hosts, ranges);
  }

  get empty(): boolean {
    return this.hosts.size === 0 && this.ranges.length === 0;
  }

  allowsHost(host: string): boolean {
    return this.hosts.has(host.toLowerCase().replace(/\.$/, ''));
  }

  allowsAddress(address: Address): boolean {
    return this.ranges.some(
      ([base, bits]) => base.kind() === address.kind() && address.match(base, bits),
    );
  }
}

function badEntry(entry: string): SatchelError {
  return new SatchelError(
    'INVALID_INPUT',
    `invalid webhook allow-list entry ${JSON.stringify(entry)}: use a host name, an IP address or a CIDR such as 10.0.0.0/8`,
    { field: 'webhookAllow', entry },
  );
}

function refused(message: string, data: Record<string, unknown>): SatchelError {
  return new SatchelError('INVALID_INPUT', message, { field: 'url', ...data });
}

/** The URL, if it is an absolute http(s) URL without credentials; INVALID_INPUT otherwise. */
export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused(`invalid webhook URL ${JSON.stringify(raw)}`, { reason: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw refused(`a webhook URL must be http or https, not ${url.protocol.slice(0, -1)}`, {
      reason: 'scheme',
    });
  }
  if (url.username !== '' || url.password !== '') {
    throw refused('a webhook URL must not carry credentials (user:password@)', {
      reason: 'credentials',
    });
  }
  return url;
}

/** The host of a URL as DNS and `ipaddr` take it: IPv6 literals lose their brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * The IPv4 address an IPv6 address carries inside it, for the forms that do: IPv4-compatible
 * (`::a.b.c.d`, deprecated), IPv4-translated (`::ffff:0:a.b.c.d`, RFC 6145), NAT64
 * (`64:ff9b::a.b.c.d`, RFC 6052), 6to4 (`2002:AABB:CCDD::/48`, RFC 3056) and Teredo (the client
 * address, inverted, in the last 32 bits, RFC 4380). IPv4-mapped addresses are unwrapped by
 * `ipaddr.process` before this is asked. Null for any other address, and for `::` and `::1`.
 */
function embeddedIPv4(address: Address): ipaddr.IPv4 | null {
  if (address.kind() !== 'ipv6') return null;
  const parts = (address as ipaddr.IPv6).parts;
  const part = (i: number): number => parts[i] ?? 0;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const zeroBefore = (n: number) => parts.slice(0, n).every((p) => p === 0);
  // IPv4-compatible, but not :: (unspecified) nor ::1 (loopback), which ipaddr judges itself.
  if (zeroBefore(6) && (part(6) !== 0 || part(7) > 1)) return v4(part(6), part(7));
  if (zeroBefore(4) && part(4) === 0xffff && part(5) === 0) return v4(part(6), part(7));
  if (part(0) === 0x64 && part(1) === 0xff9b && parts.slice(2, 6).every((p) => p === 0)) {
    return v4(part(6), part(7));
  }
  if (part(0) === 0x2002) return v4(part(1), part(2));
  if (part(0) === 0x2001 && part(1) === 0) return v4(part(6) ^ 0xffff, part(7) ^ 0xffff);
  return null;
}

/** The IPv4 address a literal IPv6 address carries, mapped (`::ffff:a.b.c.d`) or embedded. */
function carriedIPv4(address: string): ipaddr.IPv4 | null {
  if (!ipaddr.isValid(address)) return null;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() !== 'ipv6') return null;
  const processed = ipaddr.process(address);
  return processed.kind() === 'ipv4' ? (processed as ipaddr.IPv4) : embeddedIPv4(processed);
}

/**
 * Why `address` may not be delivered to (its range, e.g. "loopback"), or null when it may. An
 * IPv6 form that carries an IPv4 address (`embeddedIPv4`) is refused with the range of that
 * IPv4 when it is not public, else with the form's own range: tunnels and translators reach
 * whatever the network's relay decides, so only the allow-list lets them through.
 */
export function refusedRange(address: string, allow: AllowList): string | null {
  if (!ipaddr.isValid(address)) return 'invalid';
  // process(): an IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as the IPv4 it maps.
  const parsed = ipaddr.process(address);
  if (allow.allowsAddress(parsed)) return null;
  const embedded = embeddedIPv4(parsed);
  if (embedded !== null) {
    const inner = embedded.range();
    return inner !== 'unicast'
      ? inner
      : parsed.range() === 'unicast'
        ? 'ipv4Compatible'
        : parsed.range();
  }
  const range = parsed.range();
  return range === 'unicast' ? null : range;
}

/** ipaddr.js range names as words: linkLocal → link-local. */
const RANGE_WORDS: Readonly<Record<string, string>> = {
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local',
  carrierGradeNat: 'carrier-grade NAT',
  ipv4Mapped: 'IPv4-mapped',
  ipv4Compatible: 'IPv4-compatible',
  rfc6052: 'NAT64',
  rfc6145: 'IPv4-translated',
  teredo: 'Teredo',
};

/** "a loopback address", "a link-local address". */
export function describeRange(range: string): string {
  return `a ${RANGE_WORDS[range] ?? range} address`;
}

function refusedAddress(url: URL, address: string, range: string): SatchelError {
  const host = hostOf(url);
  const what = host === address ? `${address} is` : `${host} resolves to ${address},`;
  const inner = carriedIPv4(address);
  const carrying = inner === null ? '' : ` carrying ${inner.toString()},`;
  return refused(
    `refusing webhook URL ${url.origin}: ${what}${carrying} ${describeRange(range)}; only ` +
      'public addresses are allowed unless the server is started with --webhook-allow',
    {
      reason: 'ssrf',
      host,
      address,
      range,
      ...(inner === null ? {} : { embedded: inner.toString() }),
    },
  );
}

/** Resolves every address of `host` (an IP literal resolves to itself without a query). */
export type Resolver = (host: string) => Promise<string[]>;

export const resolveAll: Resolver = async (host) => {
  const { lookup } = await import('node:dns/promises');
  return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
};

/**
 * Checks a webhook URL: its form, then every address its host resolves to. INVALID_INPUT with
 * `data.reason`: 'url', 'scheme', 'credentials', 'dns' (the host does not resolve) or 'ssrf'
 * (with the refused `address` and its `range`).
 */
export async function checkWebhookUrl(
  raw: string,
  allow: AllowList,
  resolve: Resolver = resolveAll,
): Promise<URL> {
  const url = parseWebhookUrl(raw);
  const host = hostOf(url);
  if (allow.allowsHost(host)) return url;
  let addresses: string[];
  try {
    addresses = ipaddr.isValid(host) ? [host] : await resolve(host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'ERROR';
    throw refused(`cannot resolve the webhook host ${host} (${code})`, { reason: 'dns', host });
  }
  if (addresses.length === 0) {
    throw refused(`cannot resolve the webhook host ${host}`, { reason: 'dns', host });
  }
  for (const address of addresses) {
    const range = refusedRange(address, allow);
    if (range !== null) throw refusedAddress(url, address, range);
  }
  return url;
}

/**
 * A `lookup` for node:http(s) that resolves as usual and fails the connection (code 'ESSRF')
 * when any resolved address is refused, so the socket can only reach an address that passed.
 * Hosts on the allow-list are resolved unchecked.
 */
export async function guardedLookup(allow: AllowList): Promise<LookupFunction> {
  const { lookup } = await import('node:dns');
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      if (!allow.allowsHost(hostname)) {
        for (const { address } of addresses) {
          const range = refusedRange(address, allow);
          if (range !== null) {
            const refusal = Object.assign(
              new Error(`${hostname} resolves to ${address}, ${describeRange(range)}`),
              { code: 'ESSRF' },
            );
            callback(refusal, '', 0);
            return;
          }
        }
      }
      if (options.all) {
        (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        return;
      }
      const first = addresses[0];
      if (!first) {
        callback(
          Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }),
          '',
          0,
        );
        return;
      }
      callback(null, first.address, first.family);
    });
  };
}
