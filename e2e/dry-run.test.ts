// Preflight (`?dry_run=true`) over HTTP against the 2-replica stack: for each PMS refusal
// (docs/api.md, "Writes that a PMS cannot perform") and each path of the activity rule (by id, by a
// mapped channel id, in a batch), and for photo deletes, publishing and listing deletes, the dry run
// answers exactly what the real write then answers (status and envelope, request id aside), and the
// PMS simulator received nothing from the dry run.
// A dry run that would succeed answers 200 with the record as it would be written, and nothing
// is written, relayed or published: the real write after it still finds the nights free, and the
// Events API lists one event for it.
import { startTestStack, eventually, type ErrorBody, type TestStack } from './support/stack';
import { createListing, listingWorkspace, newWorkspace, simulatorOf, type Workspace } from './support/workspaces';
import { guestWrites, newWorld, requestArrives, reviewArrives, syncUntil, type World } from './support/guest-world';
import type { SimulatorControl } from '@vrp/pms-simulator';

type Answer = { status: number; body: { data?: Record<string, unknown> } & Partial<ErrorBody> };

/** An error answer without its request id (each request has its own). */
const comparable = (a: Answer) => (a.body.error ? { status: a.status, error: { ...a.body.error, request_id: undefined } } : { status: a.status });

describe('dry runs answer what the write would, and do nothing', () => {
  let t: TestStack;
  let pms: SimulatorControl;
  let w: Workspace & { ids: string[]; account: string };
  // Listings: local, inactive local, and one per PMS whose refusals are exercised.
  let local: string, sleeping: string, pmsA: string, pmsB: string, pmsC: string, pmsF: string, pmsG: string, pmsE: string;
  /** The CHANNEL_A listing id mapped to the local listing. */
  const localChannel = 'cha-dry-local';
  let nextMonth = 1;
  /** Dates no other case of the file uses. */
  const stay = () => {
    const n = nextMonth++ - 1;
    const m = String((n % 12) + 1).padStart(2, '0');
    const year = 2031 + Math.floor(n / 12);
    return { checkIn: `${year}-${m}-10`, checkOut: `${year}-${m}-13` };
  };
  const withDryRun = (path: string) => `${path}${path.includes('?') ? '&' : '?'}dry_run=true`;

  /** The dry run, then the real write: same answer (status and envelope); the PMS saw nothing of the dry run. */
  async function sameAsReal(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
    /** `api`: another workspace's key; `between`: reads back, after the dry run, that nothing changed. */
    { api = w.api, between }: { api?: Workspace['api']; between?: () => Promise<void> } = {},
  ): Promise<{ dry: Answer; real: Answer }> {
    await pms.clearRequests();
    const dry = (await api(method, withDryRun(path), body, { headers })) as Answer;
    expect(await pms.requests({})).toEqual([]);
    await between?.();
    const real = (await api(method, path, body, { headers })) as Answer;
    expect({ case: `${method} ${path}`, ...comparable(dry) }).toEqual({
      case: `${method} ${path}`,
      ...comparable({ ...real, status: real.status === 201 || real.status === 202 ? 200 : real.status }),
    });
    return { dry, real };
  }

  /**
   * Waits until reads of `paths` answer `status` several times in a row: each service instance's
   * listing activity cache follows a toggle after a lag, and requests are spread over instances.
   */
  const cachesAnswer = (status: number, ...paths: string[]) =>
    eventually(
      async () => {
        for (let i = 0; i < 4; i++) for (const path of paths) if ((await w.api('GET', path)).status !== status) return false;
        return true;
      },
      10_000,
      `${paths.join(', ')} answering ${status}`,
    );

  const book = (propertyId: string, extra: Record<string, unknown> = {}) => ({
    propertyId,
    ...stay(),
    primaryGuest: { firstName: 'Dry', lastName: 'Run' },
    financials: { totalPrice: 300, currency: 'EUR' },
    ...extra,
  });

  beforeAll(async () => {
    t = await startTestStack();
    pms = simulatorOf(t);
    w = await listingWorkspace(
      t,
      [
        { name: 'Local', channelId: localChannel },
        { name: 'Sleeping', inactive: true },
        { name: 'On A', pmsProvider: 'PMS-A' },
        { name: 'On B', pmsProvider: 'PMS-B' },
        { name: 'On C', pmsProvider: 'PMS-C' },
        { name: 'On F', pmsProvider: 'PMS-F' },
        { name: 'On G', pmsProvider: 'PMS-G' },
        { name: 'On E', pmsProvider: 'PMS-E' },
      ],
      // Exactly the seven active listings: activating the sleeping one would exceed the plan.
      7,
    );
    [local, sleeping, pmsA, pmsB, pmsC, pmsF, pmsG, pmsE] = w.ids as [string, string, string, string, string, string, string, string];
  });
  afterAll(async () => {
    await t.stop();
  });

  it('a create that would succeed answers 200 with the reservation, writes and relays nothing; the real create then succeeds', async () => {
    for (const listing of [local, pmsA]) {
      const body = book(listing);
      await pms.clearRequests();
      const dry = (await w.api('POST', '/v1/reservations?dry_run=true', body)) as Answer;
      expect(dry.status).toBe(200);
      expect(dry.body.data).toMatchObject({ propertyId: listing, status: 'CONFIRMED', checkIn: body.checkIn, checkOut: body.checkOut });
      expect(await pms.requests({})).toEqual([]);
      expect((await w.api('GET', `/v1/reservations/${String(dry.body.data!.id)}`)).status).toBe(404);
      const real = (await w.api('POST', '/v1/reservations', body)) as Answer;
      expect(real.status).toBe(201);
      const { id: _a, confirmationCode: _b, bookedAt: _c, updatedAt: _u, pms: _p, ...rest } = real.body.data!;
      expect(dry.body.data).toMatchObject(rest);
      if (listing === pmsA) expect((await pms.requests({ provider: 'PMS-A' })).length).toBeGreaterThan(0);
      // One reservation.created for the listing: the dry run published nothing (events of a listing are listed in order).
      await eventually(
        async () =>
          (await w.api<{ data: { data: { object: { id: string } } }[] }>('GET', `/v1/events?listing_id=${listing}&type=reservation.created`)).body.data.length >
          0,
        10_000,
        'the real create’s event',
      );
      const events = (await w.api<{ data: { data: { object: { id: string } } }[] }>('GET', `/v1/events?listing_id=${listing}&type=reservation.created`)).body
        .data;
      expect(events.map((e) => e.data.object.id)).toEqual([real.body.data!.id]);
    }
  });

  it('PMS refusals: every refusal reachable here answers the same 422 pms_write_unsupported, with provider, and sends nothing', async () => {
    // Cancelling on PMS-A; changing dates on PMS-B.
    const onA = (await w.api('POST', '/v1/reservations', book(pmsA))) as Answer;
    expect(onA.status).toBe(201);
    const cancel = await sameAsReal('POST', `/v1/reservations/${String(onA.body.data!.id)}/cancel`);
    expect(cancel.real.body.error).toMatchObject({ code: 'pms_write_unsupported', provider: 'PMS-A' });
    const onB = (await w.api('POST', '/v1/reservations', book(pmsB))) as Answer;
    expect(onB.status).toBe(201);
    const move = await sameAsReal('PATCH', `/v1/reservations/${String(onB.body.data!.id)}`, stay());
    expect(move.real.body.error).toMatchObject({ code: 'pms_write_unsupported', provider: 'PMS-B' });
    // Quote on PMS-C; owner block on a PMS listing; a unit on PMS-F; a group on PMS-A.
    const quote = await sameAsReal('POST', '/v1/reservations/quote', { propertyId: pmsC, ...stay() });
    expect(quote.real.body.error).toMatchObject({ code: 'pms_write_unsupported', provider: 'PMS-C' });
    const owner = await sameAsReal('POST', '/v1/reservations', book(pmsA, { platform: 'owner' }));
    expect(owner.real.body.error).toMatchObject({ code: 'pms_write_unsupported', provider: 'PMS-A' });
    const unit = await sameAsReal('POST', '/v1/reservations', book(pmsF, { unitId: 'unit-2' }));
    expect(unit.real.body.error).toMatchObject({ code: 'pms_write_unsupported', provider: 'PMS-F' });
    const group = await sameAsReal('POST', '/v1/reservations', book(pmsA, { groupId: 'grp-1' }));
    expect(group.real.body.error).toMatchObject({ code: 'pms_write_unsupported', provider: 'PMS-A' });
    // A tentative hold on PMS-E; moving a PMS stay to another listing, or changing its times.
    const hold = await sameAsReal('POST', '/v1/reservations', book(pmsE, { tentativeHold: true }));
    expect(hold.real.body.error).toMatchObject({ code: 'pms_write_unsupported', provider: 'PMS-E' });
    const moved = await sameAsReal('PATCH', `/v1/reservations/${String(onA.body.data!.id)}`, { propertyId: local });
    expect(moved.real.body.error).toMatchObject({ code: 'pms_write_unsupported', provider: 'PMS-A' });
    const times = await sameAsReal('PATCH', `/v1/reservations/${String(onA.body.data!.id)}`, { checkInTime: '15:00' });
    expect(times.real.body.error).toMatchObject({ code: 'pms_write_unsupported', provider: 'PMS-A' });
    // A guest in PMS-F; content PMS-G cannot store at all.
    const guest = await sameAsReal('POST', '/v1/guests', { firstName: 'Pat', provider: 'PMS-F' });
    expect(guest.real.body.error).toMatchObject({ code: 'pms_write_unsupported', provider: 'PMS-F' });
    const content = await sameAsReal('PUT', `/v1/listings/${pmsG}/content`, { sections: { rooms: { bedrooms: 2, bathrooms: 1, beds: 2 } } });
    expect(content.real.body.error).toMatchObject({ code: 'pms_write_unsupported', provider: 'PMS-G' });
  });

  it('a content write PMS-G can partly store: the dry run answers the same applied/deferred split, and the PMS receives nothing from it', async () => {
    const body = { sections: { description: 'Quiet flat', rooms: { bedrooms: 2, bathrooms: 1, beds: 2 } } };
    await pms.clearRequests();
    const dry = (await w.api('PUT', `/v1/listings/${pmsG}/content?dry_run=true`, body)) as Answer;
    expect(await pms.requests({})).toEqual([]);
    expect((await w.api<{ data: { sections: object } }>('GET', `/v1/listings/${pmsG}/content`)).body.data.sections).toEqual({});
    const real = (await w.api('PUT', `/v1/listings/${pmsG}/content`, body)) as Answer;
    expect([dry.status, real.status]).toEqual([200, 200]);
    expect(dry.body.data).toMatchObject({ applied: ['description'], deferred: ['rooms'] });
    expect({ applied: dry.body.data!.applied, deferred: dry.body.data!.deferred }).toEqual({
      applied: real.body.data!.applied,
      deferred: real.body.data!.deferred,
    });
    expect((await pms.requests({ provider: 'PMS-G' })).length).toBeGreaterThan(0);
  });

  it('activity rule: an inactive listing answers the same 403 with every inactive listing, by id, through a filter-free write and in a batch', async () => {
    const create = await sameAsReal('POST', '/v1/reservations', book(sleeping));
    expect(create.real.body.error).toMatchObject({ code: 'listing_inactive', listing_ids: [sleeping] });
    const batch = await sameAsReal('PATCH', '/v1/availability/batch', {
      updates: [local, sleeping].map((listingId) => ({ listingId, from: '2031-06-01', to: '2031-06-02', price: 99 })),
    });
    expect(batch.real.body.error).toMatchObject({ code: 'listing_inactive', listings: [{ id: sleeping, name: 'Sleeping' }] });
    const content = await sameAsReal('PUT', `/v1/listings/${sleeping}/content`, { sections: { description: 'x' } });
    expect(content.real.status).toBe(403);
    const photo = await sameAsReal('POST', `/v1/listings/${sleeping}/photos`, { url: 'https://img.example.com/p.jpg' });
    expect(photo.real.status).toBe(403);
  });

  it('409 dates_unavailable with the nights, 412 on a stale If-Match, 400 validation: the same answers', async () => {
    const dates = stay();
    const first = (await w.api('POST', '/v1/reservations', book(local, dates))) as Answer;
    expect(first.status).toBe(201);
    const taken = await sameAsReal('POST', '/v1/reservations', book(local, dates));
    expect(taken.real.body.error).toMatchObject({ code: 'dates_unavailable' });
    const id = String(first.body.data!.id);
    const stale = await sameAsReal('PATCH', `/v1/reservations/${id}`, { notes: { host: 'late' } }, { 'if-match': '"999"' });
    expect(stale.real.status).toBe(412);
    const invalid = await sameAsReal('POST', '/v1/reservations', { propertyId: local });
    expect(invalid.real.status).toBe(400);
    expect((await w.api<ErrorBody>('POST', '/v1/reservations?dry_run=maybe', book(local))).body.error.fields).toHaveProperty('dry_run');
  });

  it('a toggle that would exceed the plan answers 402 as the real one; a toggle and a webhook that would succeed change nothing', async () => {
    const over = await sameAsReal('PATCH', `/v1/listings/${sleeping}`, { active: true });
    expect(over.real.body.error?.code).toBe('listings_limit_exceeded');
    const batch = await sameAsReal('POST', '/v1/listings/status', { listingIds: [sleeping], active: true });
    expect(batch.real.status).toBe(402);
    const off = (await w.api('PATCH', `/v1/listings/${local}?dry_run=true`, { active: false })) as Answer;
    expect(off.status).toBe(200);
    expect((await w.api<{ data: { status: string } }>('GET', `/v1/listings/${local}`)).body.data.status).toBe('active');
    const hook = (await w.api('POST', '/v1/webhooks?dry_run=true', { url: 'http://127.0.0.1:9/hooks' })) as Answer;
    expect(hook.status).toBe(200);
    expect((await w.api<{ data: unknown[] }>('GET', '/v1/webhooks')).body.data).toEqual([]);
  });

  it('PMS refusals on data synced from a PMS: attachments, review replies, request answers and pre-approvals answer the same 422, sending nothing', async () => {
    const world: World = await newWorld(t, [
      { name: 'Fjord', provider: 'PMS-F' },
      { name: 'Glen', provider: 'PMS-G' },
    ]);
    const on = async (method: string, path: string, body: unknown, provider: string) => {
      await pms.clearRequests();
      const dry = (await world.api(method, withDryRun(path), body)) as Answer;
      expect(await pms.requests({})).toEqual([]);
      const real = (await world.api(method, path, body)) as Answer;
      expect({ path, ...comparable(dry) }).toEqual({ path, ...comparable(real) });
      expect({ path, code: real.body.error?.code, provider: real.body.error?.provider }).toEqual({ path, code: 'pms_write_unsupported', provider });
    };
    const attachment = { url: 'https://example.com/guide.pdf', name: 'guide.pdf', contentType: 'application/pdf' };
    for (const [listing, provider] of [
      ['Glen', 'PMS-G'],
      ['Fjord', 'PMS-F'],
    ] as const) {
      const thread = await guestWrites(t, world, listing, `Hello from ${listing}`);
      await on('POST', `/v1/conversations/${thread.id}/messages`, { body: 'See attached', attachments: [attachment] }, provider);
    }
    const review = await reviewArrives(t, world, 'Fjord', { stars: 5, text: 'Lovely fjord' });
    await on('POST', `/v1/reviews/${review.id}/reply`, { body: 'Thank you!' }, 'PMS-F');
    const request = await requestArrives(t, world, 'Fjord', 'request', { arrival: '2033-03-01', departure: '2033-03-04', first_name: 'Ana' });
    await on('POST', `/v1/requests/${request.id}/accept`, undefined, 'PMS-F');
    await on('POST', `/v1/requests/${request.id}/decline`, undefined, 'PMS-F');
    const inquiry = await requestArrives(t, world, 'Fjord', 'inquiry', { arrival: '2033-04-01', departure: '2033-04-04', first_name: 'Ben' });
    await on('POST', `/v1/requests/${inquiry.id}/pre-approve`, {}, 'PMS-F');
    const glenInquiry = await requestArrives(t, world, 'Glen', 'inquiry', { arrival: '2033-05-01', departure: '2033-05-04', first_name: 'Cy' });
    await on('POST', `/v1/requests/${glenInquiry.id}/pre-approve`, { blockInstantBooking: true }, 'PMS-G');
    // A guest linked to PMS-F (it arrived with a sync).
    await pms.putGuest('PMS-F', world.account, 'f-dry-1', { first_name: 'Dagny', last_name: 'Dry', email: 'dagny@example.com' });
    let guestId = '';
    await syncUntil(
      t,
      world,
      'PMS-F',
      async () => (guestId = (await world.api<{ data: { id: string }[] }>('GET', '/v1/guests?search=dagny')).body.data[0]?.id ?? '') !== '',
      'the PMS-F guest',
    );
    await on('PATCH', `/v1/guests/${guestId}`, { firstName: 'Dag' }, 'PMS-F');
  });

  it('webhook writes: a replay of a listing inactive now answers the same 403; updates, rotations and deletes change nothing', async () => {
    const hook = (await w.api('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hooks', eventTypes: ['reservation.created'] })) as Answer;
    expect(hook.status).toBe(201);
    const id = String(hook.body.data!.id);
    const booked = (await w.api('POST', '/v1/reservations', book(local))) as Answer;
    expect(booked.status).toBe(201);
    let deliveryId = '';
    await eventually(
      async () => (deliveryId = (await w.api<{ data: { id: string }[] }>('GET', `/v1/webhooks/${id}/deliveries`)).body.data[0]?.id ?? '') !== '',
      10_000,
      'a delivery',
    );
    const replayable = (await w.api('POST', `/v1/webhooks/${id}/deliveries/${deliveryId}/replay?dry_run=true`)) as Answer;
    expect(replayable.status).toBe(200);
    expect((await w.api<{ data: unknown[] }>('GET', `/v1/webhooks/${id}/deliveries`)).body.data).toHaveLength(1);
    // The webhook service's activity caches trail a toggle (docs/architecture.md): an event of the
    // listing, read by id, shows when they refuse it.
    const event = `/v1/events/${(await w.api<{ data: { id: string }[] }>('GET', `/v1/events?listing_id=${local}`)).body.data[0]!.id}`;
    expect((await w.api('PATCH', `/v1/listings/${local}`, { active: false })).status).toBe(200);
    await cachesAnswer(403, event);
    try {
      const replay = await sameAsReal('POST', `/v1/webhooks/${id}/deliveries/${deliveryId}/replay`);
      expect(replay.real.body.error).toMatchObject({ code: 'listing_inactive', listing_ids: [local] });
    } finally {
      expect((await w.api('PATCH', `/v1/listings/${local}`, { active: true })).status).toBe(200);
      await cachesAnswer(200, event, `/v1/reservations?property_id=${local}`);
    }
    expect(((await w.api('PATCH', `/v1/webhooks/${id}?dry_run=true`, { description: 'dry' })) as Answer).body.data).toMatchObject({ description: 'dry' });
    expect(((await w.api('POST', `/v1/webhooks/${id}/rotate-secret?dry_run=true`)) as Answer).status).toBe(200);
    expect(((await w.api('DELETE', `/v1/webhooks/${id}?dry_run=true`)) as Answer).status).toBe(200);
    // Still there, unchanged, and never rotated (a rotation leaves the previous secret a grace period).
    const after = (await w.api('GET', `/v1/webhooks/${id}`)) as Answer;
    expect(after.body.data).toMatchObject({ id, description: '', previousSecretExpiresAt: null });
  });

  it('an Idempotency-Key sent with a dry run is neither recorded nor answered from a record', async () => {
    const body = book(local);
    const dry = (await w.api('POST', '/v1/reservations?dry_run=true', body, { headers: { 'idempotency-key': 'dry-key-1' } })) as Answer;
    expect(dry.status).toBe(200);
    const real = (await w.api('POST', '/v1/reservations', body, { headers: { 'idempotency-key': 'dry-key-1' } })) as Answer;
    expect(real.status).toBe(201);
    expect(real.body.data!.id).not.toBe(dry.body.data!.id);
  });

  const photosOf = async (listing: string) => (await w.api<{ data: { id: string }[] }>('GET', `/v1/listings/${listing}/photos`)).body.data.map((p) => p.id);
  const addPhoto = async (listing: string) => {
    const added = await w.api<{ data: { id: string } }>('POST', `/v1/listings/${listing}/photos`, { url: 'https://img.example.com/dry.jpg' });
    expect(added.status).toBe(201);
    return added.body.data.id;
  };
  const etagOf = async (listing: string) => (await w.api('GET', `/v1/listings/${listing}`)).headers.get('etag');

  it('activity rule through a mapped channel id: each write on the listing’s data answers the same 403 naming the listing, and the toggle back by channel id activates only in the real write', async () => {
    const photo = await addPhoto(local);
    const before = (await w.api('GET', `/v1/listings/${local}/content`)).body;
    expect((await w.api('PATCH', `/v1/listings/${local}`, { active: false })).status).toBe(200);
    try {
      const inactive = { code: 'listing_inactive', listing_ids: [local] };
      const content = await sameAsReal('PUT', `/v1/listings/${localChannel}/content`, { sections: { description: 'by channel' } });
      expect(content.real.body.error).toMatchObject(inactive);
      const add = await sameAsReal('POST', `/v1/listings/${localChannel}/photos`, { url: 'https://img.example.com/ch.jpg' });
      expect(add.real.body.error).toMatchObject(inactive);
      const remove = await sameAsReal('DELETE', `/v1/listings/${localChannel}/photos/${photo}`);
      expect(remove.real.body.error).toMatchObject(inactive);
      const publish = await sameAsReal('POST', `/v1/listings/${localChannel}/publish`);
      expect(publish.real.body.error).toMatchObject(inactive);
      // A booking naming the listing by its channel id, decided by the reservation service's activity caches.
      await cachesAnswer(403, `/v1/reservations?property_id=${localChannel}`);
      const booking = await sameAsReal('POST', '/v1/reservations', book(localChannel));
      expect(booking.real.body.error).toMatchObject(inactive);
      // The toggles work on inactive listings: activating by channel id answers 200 both times, and only the real one activates.
      const on = await sameAsReal('PATCH', `/v1/listings/${localChannel}`, { active: true }, undefined, {
        between: async () => expect((await w.api('GET', `/v1/listings/${local}`)).status).toBe(403),
      });
      expect(on.real.body.data).toMatchObject({ id: local, status: 'active' });
      // The listing as the write leaves it, not as it was: only the time of the write differs.
      const row = (a: Answer) => ({ ...(a.body.data as Record<string, unknown>), updatedAt: undefined });
      expect(row(on.dry)).toEqual(row(on.real));
    } finally {
      if ((await w.api<{ data: { status: string } }>('GET', `/v1/listings/${local}`)).status !== 200) {
        expect((await w.api('PATCH', `/v1/listings/${local}`, { active: true })).status).toBe(200);
      }
      await cachesAnswer(200, `/v1/reservations?property_id=${local}`);
    }
    // Nothing the refused writes named changed.
    expect(await photosOf(local)).toEqual([photo]);
    expect((await w.api('GET', `/v1/listings/${local}/content`)).body).toEqual(before);
  });

  it('photo delete, on a local listing and on a PMS-managed one: the same 200 (then the same 404), the photo kept until the real delete', async () => {
    // Photos are not relayed to a PMS (no PMS refusal applies to them): the PMS-G listing, whose PMS
    // cannot store some content, answers as the local one does.
    for (const listing of [local, pmsG]) {
      const photo = await addPhoto(listing);
      const path = `/v1/listings/${listing}/photos/${photo}`;
      const { dry, real } = await sameAsReal('DELETE', path, undefined, undefined, {
        between: async () => expect(await photosOf(listing)).toContain(photo),
      });
      expect({ listing, status: real.status, data: real.body.data }).toEqual({ listing, status: 200, data: { id: photo, deleted: true } });
      expect(dry.body.data).toEqual(real.body.data);
      expect(await photosOf(listing)).not.toContain(photo);
      const gone = await sameAsReal('DELETE', path);
      expect(gone.real.body.error?.code).toBe('not_found');
    }
  });

  it('publish: the same 200 with the channels, the listing unchanged (same ETag) until the real publish; the same 400 without a channel and 404', async () => {
    const before = await etagOf(local);
    // An Idempotency-Key sent with the dry run is not recorded: the real publish with it runs as new.
    const { dry, real } = await sameAsReal(
      'POST',
      `/v1/listings/${local}/publish`,
      undefined,
      { 'idempotency-key': 'dry-publish-1' },
      {
        between: async () => expect(await etagOf(local)).toBe(before),
      },
    );
    expect(real.status).toBe(200);
    expect(real.body.data).toMatchObject({ listingId: local, channels: ['CHANNEL_A'] });
    expect({ ...dry.body.data, publishedAt: undefined }).toEqual({ ...real.body.data, publishedAt: undefined });
    expect(typeof dry.body.data!.publishedAt).toBe('string');
    expect(await etagOf(local)).not.toBe(before);
    // A listing mapped to no channel; an unknown listing.
    expect((await w.api<{ data: { channels: unknown[] } }>('GET', `/v1/listings/${pmsA}`)).body.data.channels).toEqual([]);
    const unmapped = await sameAsReal('POST', `/v1/listings/${pmsA}/publish`);
    expect(unmapped.real.body.error).toMatchObject({ code: 'validation_failed', fields: { channels: expect.any(String) } });
    const unknown = await sameAsReal('POST', '/v1/listings/no-such-listing/publish');
    expect(unknown.real.body.error?.code).toBe('not_found');
  });

  it('listing delete, active (by channel id) and inactive: the same 200; the listing and its plan slot stay until the real delete; then the same 404', async () => {
    // A workspace of its own whose plan holds one active listing: the slot shows whether a delete happened.
    const other = await newWorkspace(t, 'Dry delete', 1);
    const opts = { api: other.api };
    const kept = await createListing(t, other.id, { name: 'Kept', channelId: 'cha-dry-kept' });
    const waiting = await createListing(t, other.id, { name: 'Waiting', inactive: true });
    const activate = async () => (await other.api('PATCH', `/v1/listings/${waiting}`, { active: true })).status;
    const active = await sameAsReal('DELETE', '/v1/listings/cha-dry-kept', undefined, undefined, {
      ...opts,
      between: async () => {
        expect((await other.api('GET', `/v1/listings/${kept}`)).status).toBe(200);
        expect(await activate()).toBe(402);
      },
    });
    expect({ status: active.real.status, data: active.real.body.data }).toEqual({ status: 200, data: { id: kept, deleted: true } });
    expect(active.dry.body.data).toEqual(active.real.body.data);
    expect((await other.api('GET', `/v1/listings/${kept}`)).status).toBe(404);
    expect(await activate()).toBe(200);
    const statusAll = async () => (await other.api<{ data: { id: string }[] }>('GET', '/v1/listings?status=all')).body.data.map((l) => l.id);
    const asleep = await createListing(t, other.id, { name: 'Asleep', inactive: true });
    const inactive = await sameAsReal('DELETE', `/v1/listings/${asleep}`, undefined, undefined, {
      ...opts,
      between: async () => expect(await statusAll()).toContain(asleep),
    });
    expect({ status: inactive.real.status, data: inactive.real.body.data }).toEqual({ status: 200, data: { id: asleep, deleted: true } });
    expect(inactive.dry.body.data).toEqual(inactive.real.body.data);
    expect(await statusAll()).toEqual([waiting]);
    const again = await sameAsReal('DELETE', '/v1/listings/cha-dry-kept', undefined, undefined, opts);
    expect(again.real.body.error?.code).toBe('not_found');
  });
});
