/**
 * The SSRF guard of webhooks: a URL must be http(s) without credentials, and every address its
 * host resolves to must be ordinary public unicast — not loopback, private, link-local (cloud
 * metadata at 169.254.169.254), unique-local, carrier-grade NAT, reserved, multicast or
 * unspecified, nor an IPv4-mapped form of those — unless the server's allow-list names the host
 * or the address. Checked when a webhook is created or changed, and again at every delivery on
 * the very address the connection uses (`guardedLookup`), so DNS rebinding cannot slip through.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup as lookupPromise } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { SatchelError } from '../base/errors.js';

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

/** Why `address` may not be delivered to (its range, e.g. "loopback"), or null when it may. */
export function refusedRange(address: string, allow: AllowList): string | null {
  if (!ipaddr.isValid(address)) return 'invalid';
  // process(): an IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as the IPv4 it maps.
  const parsed = ipaddr.process(address);
  if (allow.allowsAddress(parsed)) return null;
  const range = parsed.range();
  return range === 'unicast' ? null : range;
}

/** ipaddr.js range names as words: linkLocal → link-local. */
const RANGE_WORDS: Readonly<Record<string, string>> = {
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local',
  carrierGradeNat: 'carrier-grade NAT',
  ipv4Mapped: 'IPv4-mapped',
};

/** "a loopback address", "a link-local address". */
export function describeRange(range: string): string {
  return `a ${RANGE_WORDS[range] ?? range} address`;
}

function refusedAddress(url: URL, address: string, range: string): SatchelError {
  const host = hostOf(url);
  const what = host === address ? `${address} is` : `${host} resolves to ${address},`;
  return refused(
    `refusing webhook URL ${url.origin}: ${what} ${describeRange(range)}; only public ` +
      'addresses are allowed unless the server is started with --webhook-allow',
    { reason: 'ssrf', host, address, range },
  );
}

/** Resolves every address of `host` (an IP literal resolves to itself without a query). */
export type Resolver = (host: string) => Promise<string[]>;

export const resolveAll: Resolver = async (host) =>
  (await lookupPromise(host, { all: true, verbatim: true })).map((a) => a.address);

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
export function guardedLookup(allow: AllowList): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
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
