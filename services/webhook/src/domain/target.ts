// Where a webhook may be delivered (no SSRF through webhook URLs). Pure rules: the URL's shape
// per mode, and the classification of an IP address. The DNS lookups that feed them live in
// delivery/address-guard.ts, run at creation and again at every connection (DNS rebinding).
import { isIP } from 'node:net';

export type KeyMode = 'test' | 'live';

export const MAX_URL_LENGTH = 2048;

export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'unique-local' | 'unspecified' | 'multicast' | 'reserved';

/** What a URL may target in a mode; `allowLoopback` is the test-mode allowance of the deployment. */
export interface TargetPolicy {
  mode: KeyMode;
  /** Test mode only: loopback receivers (http://127.0.0.1:port) are allowed. */
  allowLoopbackInTest: boolean;
}

function ipv4Parts(ip: string): number[] {
  return ip.split('.').map(Number);
}

function classifyIpv4(ip: string): AddressClass {
  const [a, b] = ipv4Parts(ip) as [number, number, number, number];
  if (a === 0) return 'unspecified';
  if (a === 127) return 'loopback';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
  if (a === 100 && b >= 64 && b <= 127) return 'private'; // carrier-grade NAT (RFC 6598)
  if (a === 169 && b === 254) return 'link-local'; // includes cloud metadata at 169.254.169.254
  if (a === 192 && b === 0 && ipv4Parts(ip)[2] === 0) return 'reserved'; // IETF protocol assignments
  if (a === 198 && (b === 18 || b === 19)) return 'reserved'; // benchmarking
  if (a >= 224 && a <= 239) return 'multicast';
  if (a >= 240) return 'reserved'; // includes 255.255.255.255
  return 'public';
}

/** Expands an IPv6 address to its 8 groups (handles `::` and an embedded IPv4 tail). */
function ipv6Groups(ip: string): number[] {
  let text = ip.toLowerCase().split('%')[0]!;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = ipv4Parts(v4[1]!) as [number, number, number, number];
    text = text.slice(0, -v4[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail ? tail.split(':') : [];
  const missing = tail === undefined ? 0 : 8 - h.length - t.length;
  return [...h, ...Array<string>(missing).fill('0'), ...t].map((g) => parseInt(g || '0', 16));
}

function classifyIpv6(ip: string): AddressClass {
  const g = ipv6Groups(ip);
  if (g.every((x) => x === 0)) return 'unspecified';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible forms carry an IPv4 address: judge that.
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) {
    return classifyIpv4(`${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`);
  }
  // NAT64 (64:ff9b::/96) embeds an IPv4 address too.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    return classifyIpv4(`${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`);
  }
  if ((g[0]! & 0xfe00) === 0xfc00) return 'unique-local'; // fc00::/7
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local'; // fe80::/10
  if ((g[0]! & 0xff00) === 0xff00) return 'multicast';
  if (g[0] === 0x2001 && g[1] === 0xdb8) return 'reserved'; // documentation
  return 'public';
}

export function classifyAddress(ip: string): AddressClass {
  const family = isIP(ip.split('%')[0]!);
  if (family === 4) return classifyIpv4(ip);
  if (family === 6) return classifyIpv6(ip);
  return 'reserved';
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
