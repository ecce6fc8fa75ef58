// A real local HTTP receiver for webhook tests: records every request and answers with the
// status the test chooses (per request, so a test can fail the first attempts).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually as waitFor } from '@vrp/testkit';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: { id: string; type: string; listingId: string | null; workspaceId: string; createdAt: string; data: { object: Record<string, unknown> } };
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Decides the status of each request (default 200). */
  respond: (r: Received) => number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', received: [], respond: () => 200, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const r: Received = { headers: req.headers, body, json: JSON.parse(body) as Received['json'], at: Date.now() };
      receiver.received.push(r);
      res.statusCode = receiver.respond(r);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** Polls until `check` holds (no fixed sleeps): @vrp/testkit's eventually, with the wording these tests use. */
export function eventually(check: () => Promise<boolean> | boolean, what = 'condition', timeoutMs = 5000): Promise<void> {
  return waitFor(check, { what, timeoutMs });
}
