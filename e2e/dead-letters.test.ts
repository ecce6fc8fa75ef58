// No message blocks a partition, end to end over HTTP: a workspace
// deletes a listing imported from its PMS, and the PMS's next sync brings a reservation on it.
// That change cannot be applied: it becomes a dead letter the admin API lists, and other
// workspaces' PMS reservations synced after it (on twelve listings, so across the partitions of
// pms.sync.v1, its own included) are applied within 2 s. That the very partition of a dead
// letter moves on is proven message by message in packages/platform/test/consumer.test.ts.
// Once the cause is fixed (the listing comes back with the PMS's next change of it), replaying
// the dead letter applies the reservation once; replaying again applies nothing.
// Driven through the API, the admin API and the PMS simulator's control API only.
import type { SimulatorControl } from '@vrp/pms-simulator';
import { eventually, startTestStack, type ErrorBody, type TestStack } from './support/stack';
import { simulatorOf } from './support/workspaces';

interface Listing {
  id: string;
  name: string;
  pms?: { provider: string; externalId: string } | null;
}
interface Reservation {
  id: string;
  propertyId: string;
  pms: { provider: string; externalId: string } | null;
}
interface DeadLetter {
  id: string;
  service: string;
  consumerGroup: string;
  topic: string;
  partition: number;
  offset: string;
  key: string;
  headers: Record<string, string>;
  payloadBase64: string;
  errorCode: string;
  errorMessage: string;
  reason: string;
  attempts: number;
  firstFailedAt: string;
  lastFailedAt: string;
  workspaceId: string | null;
  status: string;
  replayedAt: string | null;
}
interface DeadLetterPage {
  data: DeadLetter[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}

const SYNC_TOPIC = 'pms.sync.v1';

describe('dead letters, end to end over HTTP', () => {
  let t: TestStack;
  let pms: SimulatorControl;

  beforeAll(async () => {
    t = await startTestStack();
    pms = simulatorOf(t);
  });
  afterAll(async () => {
    await t.stop();
  });

  async function workspace(): Promise<{ id: string; api: TestStack['api'] }> {
    const ws = await t.admin<{ data: { id: string } }>('POST', '/admin/v1/workspaces', { name: `DLQ e2e ${Math.random()}`, activeListingLimit: 20 });
    const key = await t.admin<{ data: { key: string } }>('POST', `/admin/v1/workspaces/${ws.body.data.id}/api-keys`, { mode: 'test' });
    return { id: ws.body.data.id, api: (method, path, body, opts = {}) => t.api(method, path, body, { key: key.body.data.key, ...opts }) };
  }

  async function connect(workspaceId: string, provider: string, accountId: string): Promise<string> {
    const res = await t.admin<{ data: { id: string } }>('POST', `/admin/v1/workspaces/${workspaceId}/connections`, { provider, accountId, mode: 'test' });
    expect(res.status).toBe(201);
    return res.body.data.id;
  }

  const sync = async (workspaceId: string, connectionId: string) => {
    const res = await t.admin('POST', `/admin/v1/workspaces/${workspaceId}/connections/${connectionId}/sync`);
    expect(res.status).toBe(200);
  };
  const listingsOf = async (api: TestStack['api']) => (await api<{ data: Listing[] }>('GET', '/v1/listings?status=all&limit=200')).body.data;
  const reservationsOf = async (api: TestStack['api']) => (await api<{ data: Reservation[] }>('GET', '/v1/reservations?limit=200')).body.data;
  const deadLetters = (query: string) => t.admin<DeadLetterPage>('GET', `/admin/v1/dead-letters${query}`);

  it('sets aside a reservation on a deleted PMS listing, keeps the partition moving, and replays it once after the fix', async () => {
    const a = await workspace();
    const b = await workspace();
    // Workspace B's PMS listings are keyed over the partitions: their messages wait behind A's
    // on A's partition, and pass it on the others.
    const goneKey = 'dlq-gone-1';
    const keptKeys = Array.from({ length: 12 }, (_, i) => `dlq-kept-${i}`);
    await pms.createAccount('PMS-D', 'dlq-a');
    await pms.createAccount('PMS-D', 'dlq-b');
    await pms.putListing('PMS-D', 'dlq-a', goneKey, { name: 'Gone Cabin' });
    for (const k of keptKeys) await pms.putListing('PMS-D', 'dlq-b', k, { name: `Kept ${k}` });
    const connA = await connect(a.id, 'PMS-D', 'dlq-a');
    const connB = await connect(b.id, 'PMS-D', 'dlq-b');
    let listingA: Listing | undefined;
    let listingsB: Listing[] = [];
    await eventually(
      async () => !!(listingA = (await listingsOf(a.api))[0]) && (listingsB = await listingsOf(b.api)).length === keptKeys.length,
      5000,
      'both imports',
    );

    // Workspace A deletes its PMS-imported listing; the PMS still has it and books it.
    expect((await a.api('DELETE', `/v1/listings/${listingA!.id}`)).status).toBe(200);
    await pms.putReservation('PMS-D', 'dlq-a', 'res-on-gone', {
      listing_id: goneKey,
      arrival: '2033-05-01',
      departure: '2033-05-04',
      guest: { first_name: 'Ada', last_name: 'Gone' },
      adults: 2,
    });
    for (const k of keptKeys)
      await pms.putReservation('PMS-D', 'dlq-b', `res-on-${k}`, {
        listing_id: k,
        arrival: '2033-05-01',
        departure: '2033-05-04',
        guest: { first_name: 'Bo', last_name: 'Kept' },
        adults: 1,
      });
    await sync(a.id, connA);
    await sync(b.id, connB);

    // The other workspace's reservations, synced after the bad message, are applied within 2 s.
    const listingOfKey = new Map(listingsB.map((l) => [l.pms!.externalId, l.id]));
    await eventually(
      async () => {
        const applied = await reservationsOf(b.api);
        return keptKeys.every((k) => applied.some((r) => r.pms?.externalId === `res-on-${k}` && r.propertyId === listingOfKey.get(k)));
      },
      2000,
      "workspace B's reservations",
    );

    // The bad message is a dead letter, listed by the admin API with its origin and reason.
    let listed: DeadLetterPage = { data: [], pagination: { total: 0, limit: 0, offset: 0, hasMore: false } };
    await eventually(async () => (listed = (await deadLetters(`?workspace_id=${a.id}`)).body).data.length === 1, 5000, 'the dead letter');
    const [dl] = listed.data;
    expect(dl).toMatchObject({
      service: 'reservation',
      consumerGroup: 'reservation-pms-sync',
      topic: SYNC_TOPIC,
      partition: expect.any(Number),
      key: goneKey,
      errorCode: 'listing_deleted',
      reason: 'permanent',
      attempts: 1,
      workspaceId: a.id,
      mode: 'test',
      status: 'open',
      replayedAt: null,
    });
    expect(dl!.errorMessage).toContain(goneKey);
    // The raw record's header names the data workspace (the test-mode sandbox of workspace A).
    expect(dl!.headers['workspace-id']).toMatch(new RegExp(`^${a.id}`));
    expect(Buffer.from(dl!.payloadBase64, 'base64').toString()).toContain('res-on-gone');
    expect(listed.pagination).toEqual({ total: 1, limit: 50, offset: 0, hasMore: false });
    // The filters combine; other workspaces, topics and groups do not see it.
    expect((await deadLetters(`?topic=${SYNC_TOPIC}&group=reservation-pms-sync&service=reservation&workspace_id=${a.id}`)).body.data.map((d) => d.id)).toEqual([
      dl!.id,
    ]);
    expect((await deadLetters(`?workspace_id=${b.id}`)).body.data).toEqual([]);
    expect((await deadLetters(`?workspace_id=${a.id}&group=guest-pms-sync`)).body.data).toEqual([]);
    expect((await deadLetters(`?workspace_id=${a.id}&topic=reservation.events.v1`)).body.data).toEqual([]);
    expect(await reservationsOf(a.api)).toEqual([]);

    // Replaying before the cause is fixed fails, keeps the dead letter and counts the attempt.
    const early = await t.admin<ErrorBody>('POST', `/admin/v1/dead-letters/${dl!.id}/replay`);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('conflict');
    expect(early.body.error.message).toContain('listing_deleted');
    expect((await deadLetters(`?workspace_id=${a.id}`)).body.data).toEqual([expect.objectContaining({ id: dl!.id, attempts: 2, status: 'open' })]);

    // The fix: the listing comes back with the PMS's next change of it.
    await pms.putListing('PMS-D', 'dlq-a', goneKey, { name: 'Gone Cabin, back' });
    await sync(a.id, connA);
    let back: Listing | undefined;
    await eventually(async () => !!(back = (await listingsOf(a.api)).find((l) => l.pms?.externalId === goneKey)), 5000, 'the listing imported again');

    // Replay applies the reservation once, on the listing as it is now.
    const replay = await t.admin<{ data: DeadLetter }>('POST', `/admin/v1/dead-letters/${dl!.id}/replay`);
    expect(replay.status).toBe(200);
    expect(replay.body.data).toMatchObject({ id: dl!.id, status: 'replayed', attempts: 3 });
    expect(new Date(replay.body.data.replayedAt!).getTime()).toBeGreaterThan(new Date(dl!.firstFailedAt).getTime());
    const applied = await reservationsOf(a.api);
    expect(applied).toEqual([expect.objectContaining({ propertyId: back!.id, pms: { provider: 'PMS-D', externalId: 'res-on-gone' } })]);

    // Replaying again applies nothing a second time.
    const again = await t.admin<ErrorBody>('POST', `/admin/v1/dead-letters/${dl!.id}/replay`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    expect(await reservationsOf(a.api)).toEqual(applied);
    expect((await deadLetters(`?workspace_id=${a.id}`)).body.data).toEqual([]);
    expect((await deadLetters(`?workspace_id=${a.id}&status=replayed`)).body.data.map((d) => d.id)).toEqual([dl!.id]);

    // Delete removes the record; a second delete is 404.
    const deleted = await t.admin<{ data: DeadLetter }>('DELETE', `/admin/v1/dead-letters/${dl!.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data.id).toBe(dl!.id);
    expect((await deadLetters(`?workspace_id=${a.id}&status=all`)).body.data).toEqual([]);
    expect((await t.admin<ErrorBody>('DELETE', `/admin/v1/dead-letters/${dl!.id}`)).status).toBe(404);
    expect((await t.admin<ErrorBody>('POST', `/admin/v1/dead-letters/${dl!.id}/replay`)).status).toBe(404);
  });

  it('validates the list query with the admin API’s usual envelope', async () => {
    const res = await t.admin<ErrorBody>('GET', '/admin/v1/dead-letters?limit=0&status=stuck');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(Object.keys(res.body.error.fields ?? {}).sort()).toEqual(['limit', 'status']);
  });
});
