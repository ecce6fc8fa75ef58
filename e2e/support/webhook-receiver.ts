// A real local HTTP receiver for webhook e2e tests and the benchmark: records every request
// (headers, raw body, arrival time) and answers with the status the test chooses.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  /** Request path (one receiver can stand for several endpoints). */
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body, byte for byte (signatures are computed over it). */
  body: string;
  json: {
    id: string;
    type: string;
    apiVersion: string;
    createdAt: string;
    workspaceId: string;
    listingId: string | null;
    data: { object: Record<string, unknown> };
  };
  arrivedAt: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Status of each answer (default 200). */
  respond: (r: ReceivedWebhook) => number;
  onReceive?: (r: ReceivedWebhook) => void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = { url: '', received: [], respond: () => 200, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const r: ReceivedWebhook = {
        path: req.url ?? '/',
        headers: req.headers,
        body,
        json: JSON.parse(body) as ReceivedWebhook['json'],
        arrivedAt: performance.now(),
      };
      receiver.received.push(r);
      receiver.onReceive?.(r);
      res.statusCode = receiver.respond(r);
      res.end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** What docs/webhooks.md tells receivers to do, in a few lines of node:crypto. */
export function verify(header: string, secret: string, rawBody: string, toleranceSeconds = 300): boolean {
  const parts = Object.entries(header.split(',').map((p) => p.split('=')));
  const t = Number(parts.find(([, [k]]) => k === 't')?.[1][1]);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  return parts.some(([, [k, v]]) => k === 'v1' && v !== undefined && v.length === 64 && timingSafeEqual(Buffer.from(v, 'hex'), expected));
}
