// One delivery attempt over HTTP: POST the JSON body with the signature headers, with a
// bounded time and a bounded response read, connecting only to checked addresses. Redirects
// are not followed (a 3xx is a failed attempt): a redirect could lead anywhere.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { AttemptOutcome } from '../domain/delivery';
import { addressRefusal, type TargetPolicy } from '../domain/target';
import { guardedLookup, type Resolver } from './address-guard';

export interface SendLimits {
  /** Whole attempt: connect, send, first bytes and the bounded read. */
  timeoutMs: number;
  /** Bytes of the response read at most; the rest is not read. */
  maxResponseBytes: number;
  /** Bytes of the response body kept in the delivery log. */
  keptResponseBytes: number;
}

export const DEFAULT_SEND_LIMITS: SendLimits = { timeoutMs: 10_000, maxResponseBytes: 64 * 1024, keptResponseBytes: 1024 };

export interface OutgoingRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  policy: TargetPolicy;
}

export type Sender = (request: OutgoingRequest) => Promise<AttemptOutcome>;

/**
 * Keep-alive connection pools, one pair per target policy. A pool reuses a connection by host and
 * port alone, and the address guard runs only when a connection is opened: a connection that one
 * policy may open (a host resolving to loopback, in test mode) must never carry a request made
 * under a stricter one (live mode).
 */
const agentsByPolicy = new Map<string, { http: http.Agent; https: https.Agent }>();

function agentsFor(policy: TargetPolicy): { http: http.Agent; https: https.Agent } {
  const key = `${policy.mode}:${policy.allowLoopbackInTest}`;
  let agents = agentsByPolicy.get(key);
  if (!agents) {
    agents = { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) };
    agentsByPolicy.set(key, agents);
  }
  return agents;
}

export function createHttpSender(resolve: Resolver, limits: SendLimits = DEFAULT_SEND_LIMITS): Sender {
  return (request) =>
    new Promise<AttemptOutcome>((settle) => {
      const started = process.hrtime.bigint();
      const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
      let done = false;
      const finish = (outcome: AttemptOutcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        settle(outcome);
      };
      const url = new URL(request.url);
      const host = url.hostname.replace(/^\[|\]$/g, '');
      // An IP literal never goes through `lookup`: judge it here.
      if (isIP(host)) {
        const refusal = addressRefusal(host, request.policy);
        if (refusal) {
          finish({ kind: 'error', error: `blocked: ${refusal}`, durationMs: 0 });
          return;
        }
      }
      const secure = url.protocol === 'https:';
      const body = Buffer.from(request.body);
      const agents = agentsFor(request.policy);
      const req = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? agents.https : agents.http,
        headers: { ...request.headers, 'content-type': 'application/json', 'content-length': String(body.length) },
        lookup: guardedLookup(request.policy, resolve) as unknown as http.RequestOptions['lookup'],
      });
      const timer = setTimeout(() => {
        req.destroy();
        finish({ kind: 'error', error: `timeout after ${limits.timeoutMs} ms`, durationMs: elapsed() });
      }, limits.timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) =>
        finish({ kind: 'error', error: err.code === 'EBLOCKEDADDRESS' ? err.message : `${err.code ?? 'error'}: ${err.message}`, durationMs: elapsed() }),
      );
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let read = 0;
        const complete = () => {
          const text = Buffer.concat(chunks).subarray(0, limits.keptResponseBytes).toString('utf8');
          finish({ kind: 'response', status: res.statusCode ?? 0, body: text, durationMs: elapsed() });
        };
        res.on('data', (chunk: Buffer) => {
          if (read < limits.keptResponseBytes) chunks.push(chunk);
          read += chunk.length;
          if (read >= limits.maxResponseBytes) {
            // Enough: the status is what counts; do not let an endpoint stream forever.
            complete();
            res.destroy();
          }
        });
        res.on('end', complete);
        res.on('error', complete);
      });
      req.end(body);
    });
}
