// The whole stack at two replicas of every service and of the gateway, as production runs it
// (docs/operations.md, "Scaling and rolling upgrades"), over HTTP only:
// - knowledge is not shared: a listing toggle answers 403 listing_inactive on every path
//   (docs/api.md) from every replica within the activity lag, and activation 200 again; a revoked key
//   is refused by every gateway replica within its cache's TTL;
// - work is shared and done once: each write's webhook is sent once, each PMS change applied once;
// - a rolling restart of every instance, one at a time, under a mixed read/write load fails no
//   read, loses no acknowledged write and no event, and leaves no dead letter.
import { randomUUID } from 'node:crypto';
import { startTestStack, eventually, type ErrorBody, type TestStack } from './support/stack';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver';
import { listingWorkspace, simulatorOf } from './support/workspaces';

interface Reservation {
  id: string;
  propertyId: string;
  checkIn: string;
}

const REPLICAS = 2;
/** How soon every replica must know a toggle: the activity lag's target is 100 ms (p99, pnpm bench); this is the bound of a test. */
const TOGGLE_BOUND_MS = 2000;
/** The gateway's cache of verified keys (API_KEY_CACHE_TTL_MS, default 1 s) bounds a revocation on the other replicas. */
const KEY_CACHE_TTL_MS = 1000;

const guest = { firstName: 'Rep', lastName: 'Lica', email: 'rep@example.com' };
/** A stay of two nights starting `n` x 3 days after a base date: distinct stays never overlap. */
const stay = (base: string, n: number) => {
  const start = new Date(Date.parse(base) + n * 3 * 86_400_000);
  const end = new Date(start.getTime() + 2 * 86_400_000);
  return { checkIn: start.toISOString().slice(0, 10), checkOut: end.toISOString().slice(0, 10) };
};

describe(`the whole stack at ${REPLICAS} replicas of every service`, () => {
  /** A plan whose rate limits these tests' polling never reaches (they test replicas, not limits). */
  const roomy = async <W extends { id: string }>(w: W): Promise<W> => {
    const limits = { keyRequestsPerSecond: 1000, keyBurst: 5000, workspaceRequestsPerSecond: 1000, workspaceBurst: 5000 };
    const res = await t.admin('PATCH', `/admin/v1/workspaces/${w.id}`, { rateLimits: limits });
    if (res.status !== 200) throw new Error(`plan change answered ${res.status}`);
    return w;
  };
  let t: TestStack;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    t = await startTestStack({ replicas: REPLICAS });
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
  });

  it(`runs ${REPLICAS} gateway replicas behind one address`, () => {
    expect(t.gatewayUrls()).toHaveLength(REPLICAS);
    expect(new Set(t.gatewayUrls()).size).toBe(REPLICAS);
  });

  it('answers 403 listing_inactive on every path from every replica after a toggle, and 200 again after activation', async () => {
    const w = await roomy(await listingWorkspace(t, [{ name: 'Toggled', channelId: 'cha-scale-out' }, { name: 'Other' }]));
    const [listing] = w.ids as [string];
    const made = await w.api<{ data: Reservation }>('POST', '/v1/reservations', { propertyId: listing, ...stay('2031-03-01', 0), primaryGuest: guest });
    expect(made.status).toBe(201);
    let guestId = '';
    await eventually(
      async () => {
        const found = await w.api<{ data: { id: string }[] }>('GET', '/v1/guests?search=lica');
        guestId = found.body.data[0]?.id ?? '';
        return guestId !== '';
      },
      5000,
      'the guest of the reservation',
    );
    const reads: [string, string, unknown?][] = [
      ['GET', `/v1/listings/${listing}`],
      ['GET', '/v1/listings/cha-scale-out'],
      ['GET', `/v1/properties/${listing}`],
      ['GET', `/v1/listings/${listing}/calendar?from=2031-03-01&to=2031-03-05`],
      ['GET', `/v1/listings/${listing}/content`],
      ['GET', `/v1/listings/${listing}/photos`],
      ['GET', `/v1/reservations/${made.body.data.id}`],
      ['GET', `/v1/reservations?property_id=${listing}`],
      ['POST', '/v1/reservations/quote', { propertyId: listing, ...stay('2031-04-01', 0) }],
      ['GET', `/v1/guests/${guestId}`],
    ];
    // Each path asked twice through each gateway replica: each replica's channel to a service
    // alternates between its instances (round_robin), so every instance answers.
    const round = async () => {
      const out: string[] = [];
      for (const [method, path, body] of reads) {
        for (const baseUrl of t.gatewayUrls()) {
          for (let i = 0; i < 2; i++) {
            const res = await w.api<ErrorBody>(method, path, body, { baseUrl });
            out.push(`${method} ${path} ${res.status} ${res.status === 403 ? res.body.error.code : ''}`);
          }
        }
      }
      return out;
    };
    const allAre = (rows: string[], status: number) => rows.every((r) => r.includes(` ${status} `));

    expect(allAre(await round(), 200)).toBe(true);
    expect((await w.api('PATCH', `/v1/listings/${listing}`, { active: false })).status).toBe(200);
    const toggled = Date.now();
    await eventually(async () => allAre(await round(), 403), TOGGLE_BOUND_MS + 3000, 'every replica to answer 403');
    expect(Date.now() - toggled).toBeLessThanOrEqual(TOGGLE_BOUND_MS);
    // Not a lucky round: every instance answers 403, every time, with the listing named.
    for (let i = 0; i < 3; i++) {
      const rows = await round();
      expect(rows.filter((r) => !r.endsWith('403 listing_inactive'))).toEqual([]);
    }

    expect((await w.api('PATCH', `/v1/listings/${listing}`, { active: true })).status).toBe(200);
    const activated = Date.now();
    await eventually(async () => allAre(await round(), 200), TOGGLE_BOUND_MS + 3000, 'every replica to answer 200');
    expect(Date.now() - activated).toBeLessThanOrEqual(TOGGLE_BOUND_MS);
    for (let i = 0; i < 3; i++) expect((await round()).filter((r) => !r.includes(' 200 '))).toEqual([]);
  });

  it('refuses a revoked API key on every gateway replica within the key cache TTL', async () => {
    const w = await listingWorkspace(t, [{ name: 'Keys' }]);
    const made = await t.admin<{ data: { id: string; key: string } }>('POST', `/admin/v1/workspaces/${w.id}/api-keys`, { mode: 'test' });
    expect(made.status).toBe(201);
    const { id: keyId, key } = made.body.data;
    // Every replica has verified (and cached) the key.
    for (const baseUrl of t.gatewayUrls()) expect((await t.api('GET', '/v1/listings', undefined, { key, baseUrl })).status).toBe(200);
    expect((await t.admin('DELETE', `/admin/v1/api-keys/${keyId}`)).status).toBe(200);
    const revoked = Date.now();
    for (const baseUrl of t.gatewayUrls()) {
      await eventually(
        async () => (await t.api('GET', '/v1/listings', undefined, { key, baseUrl })).status === 401,
        KEY_CACHE_TTL_MS + 3000,
        'the key refused',
      );
    }
    expect(Date.now() - revoked).toBeLessThanOrEqual(KEY_CACHE_TTL_MS + 1000);
  });

  it('sends each write’s webhook once and applies each PMS change once', async () => {
    const w = await listingWorkspace(t, [{ name: 'Busy' }, { name: 'Riverbank', pmsProvider: 'PMS-A' }]);
    const [busy, riverbank] = w.ids as [string, string];
    const sub = await w.api<{ data: { id: string } }>('POST', '/v1/webhooks', { url: receiver.url, eventTypes: ['reservation.created'] });
    expect(sub.status).toBe(201);
    // Twenty creates side by side, spread over both gateway replicas.
    const urls = t.gatewayUrls();
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        w.api<{ data: Reservation }>(
          'POST',
          '/v1/reservations',
          { propertyId: busy, ...stay('2032-01-01', n), primaryGuest: guest },
          { baseUrl: urls[n % urls.length]! },
        ),
      ),
    );
    expect(created.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 201));
    const ids = new Set(created.map((r) => r.body.data.id));
    const ours = () => receiver.received.filter((r) => r.json.type === 'reservation.created' && ids.has(r.json.data.object.id as string));
    await eventually(() => ours().length >= 20, 10_000, 'the twenty deliveries');
    // Allow a duplicate time to show up: the delivery log says every delivery took one attempt.
    const deliveries = await w.api<{ data: { eventId: string; attempts: number; status: string }[] }>(
      'GET',
      `/v1/webhooks/${sub.body.data.id}/deliveries?limit=100`,
    );
    expect(deliveries.body.data.filter((d) => d.status === 'succeeded').length).toBe(20);
    expect(new Set(ours().map((r) => r.json.id)).size).toBe(20);
    expect(ours()).toHaveLength(20);
    expect(deliveries.body.data.every((d) => d.attempts === 1)).toBe(true);

    // A reservation made in the PMS arrives with a sync: stored once, by one instance.
    await simulatorOf(t).putReservation('PMS-A', w.account, 'rep-1', {
      listing_id: 'ext-Riverbank',
      arrival: '2032-06-01',
      departure: '2032-06-04',
      guest: { first_name: 'Pax' },
    });
    const connection = w.connections.get('PMS-A')!;
    expect((await t.admin('POST', `/admin/v1/workspaces/${w.id}/connections/${connection}/sync`)).status).toBe(200);
    const onRiverbank = async () => (await w.api<{ data: Reservation[] }>('GET', `/v1/reservations?property_id=${riverbank}`)).body.data;
    await eventually(async () => (await onRiverbank()).length >= 1, 5000, 'the PMS reservation');
    expect((await t.admin('POST', `/admin/v1/workspaces/${w.id}/connections/${connection}/sync`)).status).toBe(200);
    const health = await t.admin<{ data: { syncHealth: { changes: { published: number; applied: number; pending: number } } } }>(
      'GET',
      `/admin/v1/workspaces/${w.id}/connections/${connection}`,
    );
    expect(health.body.data.syncHealth.changes.applied).toBe(health.body.data.syncHealth.changes.published);
    expect(await onRiverbank()).toHaveLength(1);
  });

  it('keeps every read answered, every acknowledged write and its event through a rolling restart of every instance', async () => {
    const w = await roomy(await listingWorkspace(t, [{ name: 'Rolling' }]));
    const [listing] = w.ids as [string];
    const sub = await w.api<{ data: { id: string } }>('POST', '/v1/webhooks', { url: receiver.url, eventTypes: ['reservation.created'] });
    expect(sub.status).toBe(201);

    const failedReads: string[] = [];
    let step = 'before the restarts';
    const acknowledged: string[] = [];
    let reads = 0;
    let next = 0;
    let running = true;
    const reader = async () => {
      while (running) {
        for (const path of [`/v1/listings/${listing}`, '/v1/reservations?limit=5', `/v1/listings/${listing}/calendar?from=2033-01-01&to=2033-01-10`]) {
          const res = await w.api('GET', path).catch((error: unknown) => ({ status: `network error ${String((error as Error).cause ?? error)}` }));
          reads += 1;
          if (res.status !== 200) failedReads.push(`${step}: ${path}: ${res.status} ${JSON.stringify((res as { body?: unknown }).body ?? '')}`);
        }
      }
    };
    // A client that does what the docs say: retry a write whose outcome it did not get with the
    // same Idempotency-Key (503, 504, 409 idempotency_in_progress, a dropped connection).
    const writer = async () => {
      while (running) {
        const body = { propertyId: listing, ...stay('2033-01-01', next++), primaryGuest: guest };
        const key = randomUUID();
        for (let attempt = 0; attempt < 50; attempt++) {
          const res = await w
            .api<{ data: Reservation } & ErrorBody>('POST', '/v1/reservations', body, { headers: { 'Idempotency-Key': key } })
            .catch(() => ({ status: 0, body: undefined }));
          if (res.status === 201) {
            acknowledged.push(res.body!.data.id);
            break;
          }
          if (![0, 503, 504, 409].includes(res.status)) throw new Error(`write answered ${res.status}: ${JSON.stringify(res.body)}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    };
    const load = Promise.all([reader(), reader(), writer(), writer()]);
    const steps = await t.rollingRestart(async (done) => {
      step = `after ${done}`;
      // Traffic flows between the steps: each restarted instance serves before the next goes.
      const before = reads;
      await eventually(() => reads >= before + 6, 10_000, 'reads between restarts');
    });
    running = false;
    await load;

    expect(steps).toEqual([
      ...['listing', 'reservation', 'guest', 'pms-adapter', 'webhook'].flatMap((name) => [`${name}-1`, `${name}-2`]),
      'gateway-1',
      'gateway-2',
    ]);
    expect(failedReads).toEqual([]);
    expect(acknowledged.length).toBeGreaterThan(5);
    // No acknowledged write lost, none written twice.
    const stored: string[] = [];
    for (let offset = 0; ; offset += 200) {
      const page = await w.api<{ data: Reservation[]; pagination: { hasMore: boolean } }>(
        'GET',
        `/v1/reservations?property_id=${listing}&limit=200&offset=${offset}`,
      );
      stored.push(...page.body.data.map((r) => r.id));
      if (!page.body.pagination.hasMore) break;
    }
    expect(stored.sort()).toEqual([...acknowledged].sort());
    // Every acknowledged write's event arrives.
    const arrived = () => new Set(receiver.received.filter((r) => r.json.type === 'reservation.created').map((r) => r.json.data.object.id as string));
    await eventually(() => acknowledged.every((id) => arrived().has(id)), 15_000, 'the webhook of every acknowledged write');
    // Nothing set aside.
    const dead = await t.admin<{ data: unknown[] }>('GET', `/admin/v1/dead-letters?status=all`);
    expect(dead.body.data).toEqual([]);
  });
});

describe(`scheduled PMS syncs at ${REPLICAS} pms-adapter instances`, () => {
  let t: TestStack;
  beforeAll(async () => {
    // Both instances pull every connection every 100 ms: their passes overlap all the time.
    t = await startTestStack({ replicas: REPLICAS, pmsSyncIntervalMs: 100 });
  });
  afterAll(() => t?.stop());

  it('publishes and applies each PMS change once, though every instance runs the schedule', async () => {
    const w = await listingWorkspace(t, [{ name: 'Scheduled', pmsProvider: 'PMS-A' }]);
    const [listing] = w.ids as [string];
    const pms = simulatorOf(t);
    for (let n = 0; n < 5; n++) {
      const nights = stay('2034-01-01', n);
      await pms.putReservation('PMS-A', w.account, `sched-${n}`, {
        listing_id: 'ext-Scheduled',
        arrival: nights.checkIn,
        departure: nights.checkOut,
        guest: { first_name: `G${n}` },
      });
    }
    const connection = w.connections.get('PMS-A')!;
    const health = async () =>
      (
        await t.admin<{ data: { syncHealth: { changes: { published: number; applied: number; pending: number; deadLettered: number } } } }>(
          'GET',
          `/admin/v1/workspaces/${w.id}/connections/${connection}`,
        )
      ).body.data.syncHealth.changes;
    const onListing = async () => (await w.api<{ data: Reservation[] }>('GET', `/v1/reservations?property_id=${listing}`)).body.data;
    await eventually(async () => (await onListing()).length === 5, 10_000, 'the five PMS reservations');
    // Several more passes of both schedules: nothing is published or stored again.
    const settled = await health();
    await eventually(async () => (await health()).applied === settled.published && (await health()).pending === 0, 10_000, 'every published change applied');
    const before = await health();
    // Several more passes of both schedules, as the PMS saw them: nothing is published or stored again.
    const pulls = async () =>
      (await pms.requests({ provider: 'PMS-A', account: w.account })).filter((r) => r.method === 'GET' && r.path.endsWith('/changes')).length;
    const pulled = await pulls();
    await eventually(async () => (await pulls()) >= pulled + 8, 10_000, 'more scheduled pulls of the PMS');
    const after = await health();
    expect(after.published).toBe(before.published);
    expect(after).toMatchObject({ applied: after.published, pending: 0, deadLettered: 0 });
    expect((await onListing()).map((r) => r.checkIn).sort()).toEqual(Array.from({ length: 5 }, (_, n) => stay('2034-01-01', n).checkIn));
  });
});
