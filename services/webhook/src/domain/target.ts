// Where a webhook may be delivered (no SSRF through webhook URLs). Pure rules: the URL's shape
// per mode, and the classification of an IP address. The DNS lookups that feed them live in
// ports/address-guard.ts, run at creation and again at every connection (DNS rebinding).
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { MAX_WEBHOOK_URL_LENGTH } from '@vrp/api-model';
import type { KeyMode } from '@vrp/platform/sandbox';

export type { KeyMode };
export const MAX_URL_LENGTH = MAX_WEBHOOK_URL_LENGTH;

/**
 * The class of an address: `public`, or the kebab-cased name of the special-purpose range it
 * is in as ipaddr.js classifies it (`loopback`, `private`, `link-local`, `unique-local`,
 * `carrier-grade-nat`, `reserved`, `rfc6052` (NAT64), `rfc6145` (IPv4-translated), `6to4`,
 * `teredo`, `benchmarking`, `as112`, `amt`, `deprecated-site-local`, ...), which covers the IANA
 * IPv4 and IPv6 Special-Purpose Address Registries. An IPv6 address outside 2000::/3 (the
 * only block IANA allocates for global unicast) is `reserved` even where ipaddr.js has no
 * name for it (e.g. the deprecated IPv4-compatible ::a.b.c.d).
 */
export type AddressClass = string;

/** What a URL may target in a mode; `allowLoopback` is the test-mode allowance of the deployment. */
export interface TargetPolicy {
  mode: KeyMode;
  /** Test mode only: loopback receivers (http://127.0.0.1:port) are allowed. */
  allowLoopbackInTest: boolean;
}

/** IANA's IPv6 global unicast allocation; everything else is special or unallocated. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function classifyParsed(addr: ipaddr.IPv4 | ipaddr.IPv6): AddressClass {
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    // ::ffff:a.b.c.d reaches a.b.c.d: judge that address.
    if (v6.isIPv4MappedAddress()) return classifyParsed(v6.toIPv4Address());
    const range = v6.range();
    if (range !== 'unicast') return kebab(range);
    return v6.match(GLOBAL_UNICAST_V6) ? 'public' : 'reserved';
  }
  const range = (addr as ipaddr.IPv4).range();
  return range === 'unicast' ? 'public' : kebab(range);
}

export function classifyAddress(ip: string): AddressClass {
  const bare = ip.split('%')[0]!;
  // isIP first: ipaddr.js alone also accepts legacy forms (`0x7f.1`, `127.1`) that no resolver returns.
  const family = isIP(bare);
  if (!family) return 'reserved';
  // ipaddr.js reads a dotted IPv4 tail as IPv4-mapped (`::1.2.3.4` as `::ffff:1.2.3.4`): hand it
  // the WHATWG URL serialization instead, which is canonical hex (`::102:304`).
  const text = family === 6 ? new URL(`http://[${bare}]/`).hostname.slice(1, -1) : bare;
  return classifyParsed(ipaddr.parse(text));
}

/** Null when the address may receive deliveries under `policy`, else why not. */
export function addressRefusal(ip: string, policy: TargetPolicy): string | null {
  const cls = classifyAddress(ip);
  if (cls === 'public') return null;
  if (cls === 'loopback' && policy.mode === 'test' && policy.allowLoopbackInTest) return null;
  return `resolves to a ${cls} address (${ip}); webhook URLs must be publicly reachable`;
}

/** The URL with its host as written (IPv6 without brackets), or the field error. */
export function checkUrlShape(raw: string, policy: TargetPolicy): { url: URL; host: string } | { error: string } {
  if (raw.length > MAX_URL_LENGTH) return { error: `must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { error: 'must be an absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { error: 'must use https' };
  if (url.protocol === 'http:' && policy.mode === 'live') return { error: 'must use https in live mode' };
  if (url.username || url.password) return { error: 'must not contain credentials' };
  if (url.hash) return { error: 'must not contain a fragment' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host) return { error: 'must have a host' };
  if (isIP(host)) {
    const refusal = addressRefusal(host, policy);
    if (refusal) return { error: refusal };
  }
  return { url, host };
}
