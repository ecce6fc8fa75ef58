// Issue 6 benchmark, on the embedded stack with a real local HTTP receiver:
// 1. latency: p50/p99 from the API write (a listing toggle, PATCH /v1/listings/{id}) to the
//    arrival of its webhook at the receiver, one write at a time;
// 2. throughput: deliveries per second to the local receiver, with SUBSCRIPTIONS endpoints
//    each receiving every toggle of a burst of writes: live (while the writes happen, bounded
//    by the write rate) and draining a backlog (the receiver refused the first attempts, the
//    clock then jumps past the retry time and the whole queue drains, in order per listing).
// Bounded: at most ~2 minutes; prints one JSON report.
import { ManualClock, startStack } from '@vrp/stack';
import { startWebhookReceiver } from '../e2e/support/webhook-receiver';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 20);
const BURST_WRITES = Number(process.env.BENCH_BURST_WRITES ?? 100);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main(): Promise<void> {
  const clock = new ManualClock();
  const stack = await startStack({ port: 0, ephemeralPorts: true, logLevel: 'silent', webhookClock: clock });
  const receiver = await startWebhookReceiver();
  const key = stack.demo!.apiKey;
  const [a, b] = stack.demo!.listingIds as [string, string];
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return res.json() as Promise<{ data: { id: string } }>;
  };
  const deadline = Date.now() + 110_000;

  // 1. Latency, one subscription, one write at a time.
  const first = await call('POST', '/v1/webhooks', { url: receiver.url, eventTypes: ['listing.activated', 'listing.deactivated'] });
  const latencies: number[] = [];
  let active = true;
  for (let i = 0; i < ROUNDS && Date.now() < deadline; i++) {
    active = !active;
    const arrived = new Promise<number>((resolve) => {
      receiver.onReceive = (r) => {
        if (r.json.listingId === a && r.json.type === (active ? 'listing.activated' : 'listing.deactivated')) resolve(r.arrivedAt);
      };
    });
    const t0 = performance.now();
    await call('PATCH', `/v1/listings/${a}`, { active });
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no webhook within 5 s')), 5000).unref());
    latencies.push((await Promise.race([arrived, timeout])) - t0);
  }
  if (!active) await call('PATCH', `/v1/listings/${a}`, { active: true });
  await call('DELETE', `/v1/webhooks/${first.data.id}`);

  // 2. Throughput: SUBSCRIPTIONS endpoints, a burst of writes on two listings.
  receiver.onReceive = undefined;
  const subs: string[] = [];
  for (let i = 0; i < SUBSCRIPTIONS; i++) subs.push((await call('POST', '/v1/webhooks', { url: `${receiver.url}/${i}`, eventTypes: ['listing.activated', 'listing.deactivated'] })).data.id);
  receiver.received.length = 0;
  const expected = BURST_WRITES * SUBSCRIPTIONS;
  const t0 = performance.now();
  const states = { [a]: true, [b]: true };
  await Promise.all(
    [a, b].map(async (id) => {
      for (let i = 0; i < BURST_WRITES / 2; i++) {
        states[id] = !states[id];
        await call('PATCH', `/v1/listings/${id}`, { active: states[id] });
      }
    }),
  );
  const written = performance.now();
  while (receiver.received.length < expected && Date.now() < deadline + 60_000) await new Promise((r) => setTimeout(r, 10));
  const last = Math.max(...receiver.received.map((r) => r.arrivedAt));
  const received = receiver.received.length;

  // 3. Backlog drain: the heads of every queue fail once, the rest waits behind them.
  receiver.received.length = 0;
  const failed = new Set<string>();
  receiver.respond = (r) => {
    const queue = `${r.path} ${r.json.listingId}`;
    return failed.has(queue) ? 200 : (failed.add(queue), 503);
  };
  for (const id of [a, b]) {
    for (let i = 0; i < BURST_WRITES / 2; i++) {
      states[id] = !states[id];
      await call('PATCH', `/v1/listings/${id}`, { active: states[id] });
    }
  }
  // Every queue head has failed once (2 listings x SUBSCRIPTIONS endpoints).
  while (receiver.received.length < 2 * SUBSCRIPTIONS && Date.now() < deadline + 60_000) await new Promise((r) => setTimeout(r, 10));
  receiver.received.length = 0;
  receiver.respond = () => 200;
  const drainStart = performance.now();
  clock.advance(60_000);
  while (receiver.received.length < expected && Date.now() < deadline + 120_000) await new Promise((r) => setTimeout(r, 5));
  const drainEnd = Math.max(...receiver.received.map((r) => r.arrivedAt));
  const drained = receiver.received.length;
  for (const id of subs) await call('DELETE', `/v1/webhooks/${id}`);
  for (const id of [a, b]) if (!states[id]) await call('PATCH', `/v1/listings/${id}`, { active: true });
  await stack.stop();
  await receiver.close();

  const sorted = [...latencies].sort((x, y) => x - y);
  console.log(
    JSON.stringify(
      {
        benchmark: 'webhooks: API write -> webhook arrival, and deliveries per second (embedded stack, local receiver)',
        latency: { rounds: sorted.length, p50_ms: +percentile(sorted, 50).toFixed(2), p99_ms: +percentile(sorted, 99).toFixed(2), max_ms: +sorted[sorted.length - 1]!.toFixed(2) },
        throughput: {
          subscriptions: SUBSCRIPTIONS,
          writes: BURST_WRITES,
          deliveries_expected: expected,
          deliveries_received: received,
          writes_duration_ms: +(written - t0).toFixed(1),
          deliveries_per_second: +((received / (last - t0)) * 1000).toFixed(1),
        },
        backlog_drain: {
          queues: 2 * SUBSCRIPTIONS,
          deliveries: drained,
          duration_ms: +(drainEnd - drainStart).toFixed(1),
          deliveries_per_second: +((drained / (drainEnd - drainStart)) * 1000).toFixed(1),
        },
      },
      null,
      2,
    ),
  );
  if (received < expected || drained < expected) process.exit(1);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
