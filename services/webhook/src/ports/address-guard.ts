// SSRF guard: the host of a webhook URL is resolved and every address it resolves to must be
// allowed (domain/target.ts). Checked when a subscription is created or its URL changes, and
// again inside the connection's own DNS lookup at every delivery, so a host that re-points to
// a private address after the check (DNS rebinding) is refused before a socket is opened.
import dns from 'node:dns';
import { isIP } from 'node:net';
import { addressRefusal, checkUrlShape, type TargetPolicy } from '../domain/target';

/** Resolves a host name to all its addresses. Injected so tests can simulate DNS answers. */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) => (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Null when the URL may receive deliveries, else the reason (the `url` field error). */
export async function urlRefusal(raw: string, policy: TargetPolicy, resolve: Resolver): Promise<string | null> {
  const shape = checkUrlShape(raw, policy);
  if ('error' in shape) return shape.error;
  if (isIP(shape.host)) return null; // already judged by checkUrlShape
  let addresses: string[];
  try {
    addresses = await resolve(shape.host);
  } catch {
    return `host '${shape.host}' could not be resolved`;
  }
  if (addresses.length === 0) return `host '${shape.host}' could not be resolved`;
  for (const address of addresses) {
    const refusal = addressRefusal(address, policy);
    if (refusal) return refusal;
  }
  return null;
}

/** A refused connection target; the delivery records it as its error. */
export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(reason: string) {
    super(`blocked: ${reason}`);
    this.name = 'BlockedAddressError';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request: resolves with `resolve`, refuses if any address is not allowed,
 * and hands the socket only the checked addresses.
 */
export function guardedLookup(policy: TargetPolicy, resolve: Resolver) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        const refusal =
          addresses.length === 0 ? `host '${hostname}' could not be resolved` : addresses.map((a) => addressRefusal(a, policy)).find((r) => r !== null);
        if (refusal) {
          callback(new BlockedAddressError(refusal), '', 0);
          return;
        }
        const family = (a: string) => (isIP(a) === 6 ? 6 : 4);
        if (options.all)
          callback(
            null,
            addresses.map((address) => ({ address, family: family(address) })),
          );
        else callback(null, addresses[0]!, family(addresses[0]!));
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}
