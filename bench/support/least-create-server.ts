// Child process of bench/create-path.bench.ts: the least create of this design, in one process
// as the embedded stack runs. Where the bare durable create (bare-create-server.ts) does only the
// check-and-write, this does every step the contract and the design ask of
// `POST /v1/reservations`, each the least way, and nothing else:
// - the edge: the API key (its SHA-256 in a Map), a per-key rate limit (rate-limiter-flexible,
//   the gateway's library), the body checked against the contract's schema
//   (`createReservationBody`) and the reply rendered by the contract's mapping (`toApiReservation`);
// - the gateway's idempotency record, which the design gives the gateway's own database: the
//   Idempotency-Key claimed before the call (a retry while it runs is 409
//   idempotency_in_progress) and the response recorded, on disk, before the reply (later
//   retries are answered it);
// - the service boundaries the embedded stack crosses in process: the gateway -> reservation
//   create and the reservation -> listing calendar call, each request and reply encoded and
//   decoded with the generated messages (no transport);
// - the listing from a local Map (as the activity cache holds it), its calendar's days priced
//   from a Map;
// - one transaction, answered once on disk: the Idempotency-Key (a retry answers the stored
//   reservation, another body under the key is a conflict), each night held (a held night
//   refuses the create), the confirmation code unique in the workspace, the reservation, and
//   its `created` event in the outbox;
// - the outbox relayed to the bus, and the two consumers of reservation events: the guest
//   service (the guest found by email or created, the stay linked, a conversation opened, a
//   guest event published through its own outbox) and the webhook service (the workspace's
//   subscriptions, for reservation and guest events).
//
// Two back ends do those steps (`rules` in the setup message):
// - bare: lmdb-js directly, one transaction per create and one per consumer batch, the calls a
//   plain encode and decode. The least of the steps alone.
// - rules: the same steps keeping the design's rules (docs/architecture.md): the embedded engines
//   (@vrp/engines: each service's database a document store of mongoose schemas with unique
//   indexes, the bus with partitions, consumer groups and committed offsets, all in one journal
//   in the data directory), the request context in AsyncLocalStorage, every call through an
//   opossum breaker under a deadline, and consumers idempotent by event id.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import express from 'express';
import { open } from 'lmdb';
import { Schema } from 'mongoose';
import CircuitBreaker from 'opossum';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { createReservationBody, toApiReservation, toNewReservation } from '@vrp/api-model';
import { guest as gspb, guestEvents as gpb, listing as lpb, reservation as pb, reservationEvents as epb, TOPICS } from '@vrp/contracts';
import { createEmbeddedBus } from '@vrp/engines/bus';
import { createEmbeddedStore } from '@vrp/engines/store';
import { DuplicateKeyError, type Doc, type DocumentStore, type Tx } from '@vrp/platform/store';

const DAY_MS = 86_400_000;
const NIGHTLY = 120;
const CLEANING_FEE = 40;
const TAX_RATE = 0.1;
/** The deadline of every call between services. */
const DEADLINE_MS = 5_000;
const dayAfter = (date: string, n: number) => new Date(Date.parse(date) + n * DAY_MS).toISOString().slice(0, 10);
const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const pad = (n: number) => String(n).padStart(12, '0');
const refused = (code: string, status: number) => Object.assign(new Error(code), { status });

interface Setup {
  dataDir: string;
  /** Keep the design's rules (engines, context, breakers, deadlines, idempotent consumers). */
  rules: boolean;
  /** The key and listings the stack serves, so that the same requests reach both. */
  apiKey: string;
  listingIds: string[];
}

interface Message<T> {
  encode(m: T): { finish(): Uint8Array };
  decode(b: Uint8Array): T;
}
/** A call across a service boundary, in process: request and reply encoded and decoded. */
type Call = <Req, Res>(name: string, req: Message<Req>, res: Message<Res>, handler: (r: Req) => Promise<Res>, message: Req) => Promise<Res>;
const plainCall: Call = async (_name, req, res, handler, message) => res.decode(res.encode(await handler(req.decode(req.encode(message).finish()))).finish());

/** A call through its upstream's opossum breaker, under a deadline. */
function breakerCall(): Call {
  const breakers = new Map<string, CircuitBreaker<[() => Promise<unknown>], unknown>>();
  return async (name, req, res, handler, message) => {
    let breaker = breakers.get(name);
    if (!breaker) {
      breaker = new CircuitBreaker((work: () => Promise<unknown>) => work(), {
        timeout: DEADLINE_MS,
        errorFilter: (err: unknown) => typeof (err as { status?: number }).status === 'number',
      });
      breakers.set(name, breaker);
    }
    return (await breaker.fire(() => plainCall(name, req, res, handler, message))) as Awaited<ReturnType<typeof handler>>;
  };
}

// The listing service's calendar call, answered from the calendar's days.
async function getCalendar(req: lpb.GetCalendarRequest): Promise<lpb.GetCalendarResponse> {
  const days: lpb.CalendarDay[] = [];
  for (let d = req.from; d <= req.to; d = dayAfter(d, 1)) days.push({ date: d, available: true, price: NIGHTLY, minNights: 1, reservationId: '' });
  return { listingId: req.listingId, currency: 'USD', days };
}

/** The new reservation: priced from its calendar, with a fresh id and confirmation code. */
function newReservation(req: pb.CreateReservationRequest, calendar: lpb.GetCalendarResponse): pb.Reservation {
  const input = req.reservation!;
  const base = calendar.days.reduce((s, d) => s + d.price, 0);
  const tax = Math.round((base + CLEANING_FEE) * TAX_RATE * 100) / 100;
  const now = new Date();
  return {
    ...pb.Reservation.create(),
    id: `res_${randomUUID()}`,
    workspaceId: req.workspaceId,
    propertyId: input.propertyId,
    status: 'CONFIRMED',
    source: input.source || 'DIRECT',
    confirmationCode: randomBytes(5).toString('hex').toUpperCase(),
    checkIn: input.checkIn,
    checkOut: input.checkOut,
    primaryGuest: input.primaryGuest,
    occupancy: input.occupancy,
    financials: {
      totalPrice: base + CLEANING_FEE + tax,
      currency: calendar.currency,
      paymentStatus: 'UNPAID',
      breakdown: { basePrice: base, cleaningFee: CLEANING_FEE, fees: [], taxes: [{ type: 'VAT', amount: tax, rate: TAX_RATE }], discounts: [] },
    },
    bookedAt: now,
    updatedAt: now,
    version: 1,
  };
}

const createdEvent = (r: pb.Reservation): Uint8Array =>
  epb.ReservationEvent.encode({
    eventId: randomUUID(),
    workspaceId: r.workspaceId,
    listingId: r.propertyId,
    type: epb.ReservationEventType.RESERVATION_EVENT_TYPE_CREATED,
    occurredAt: r.bookedAt,
    reservation: r,
  }).finish();

interface StoredGuest {
  id: string;
  listingIds: string[];
}
/** The guest of a reservation event (the one found by email, else a new one), and its event. */
function guestOf(event: epb.ReservationEvent, found: StoredGuest | null) {
  const r = event.reservation!;
  const guest = gspb.Guest.create({
    id: found?.id ?? `gst_${randomUUID()}`,
    workspaceId: event.workspaceId,
    firstName: r.primaryGuest!.firstName,
    lastName: r.primaryGuest!.lastName,
    contacts: [{ type: 'EMAIL', value: r.primaryGuest!.email.toLowerCase(), isPrimary: true }],
    listingIds: found?.listingIds.includes(r.propertyId) ? found.listingIds : [...(found?.listingIds ?? []), r.propertyId],
    updatedAt: new Date(),
  });
  const type = found ? gpb.GuestEventType.GUEST_EVENT_TYPE_UPDATED : gpb.GuestEventType.GUEST_EVENT_TYPE_CREATED;
  const bytes = gpb.GuestEvent.encode({
    eventId: randomUUID(),
    workspaceId: event.workspaceId,
    type,
    occurredAt: new Date(),
    guest,
    listingIds: guest.listingIds,
  }).finish();
  return { guest, event: bytes };
}

/** Runs `pass` soon, one at a time, once more when asked again while it runs. */
function soon(pass: () => Promise<void>): () => void {
  let state: 'idle' | 'scheduled' | 'running' = 'idle';
  let again = false;
  const schedule = (): void => {
    if (state === 'running') again = true;
    else if (state === 'idle') {
      state = 'scheduled';
      setImmediate(() => void run());
    }
  };
  const run = async (): Promise<void> => {
    state = 'running';
    again = false;
    await pass();
    state = 'idle';
    if (again) schedule();
  };
  return schedule;
}

/** A response the gateway records for an Idempotency-Key, and answers a retry with. */
interface Recorded {
  status: number;
  /** '' on an error. */
  etag: string;
  body: string;
}
/** What a claim of an Idempotency-Key finds: nothing (claimed now), a request running with it, or its recorded response. */
type Claim = { claimed: true } | { running: true } | { fingerprint: string; response: Recorded };

interface BackEnd {
  /** The reservation service's create: the idempotency key, the nights, the code, the stay and its event in one transaction, on disk. */
  create(req: pb.CreateReservationRequest, fingerprint: string, calendar: lpb.GetCalendarResponse): Promise<pb.Reservation>;
  /** The gateway's claim of an Idempotency-Key (not waited on disk: its loss costs a retry only). */
  claim(id: string, fingerprint: string): Promise<Claim>;
  /** The gateway's record of the response, on disk before the reply. */
  record(id: string, response: Recorded): Promise<void>;
  /** Drops the claim of a request that failed on the server's side: a retry runs it again. */
  release(id: string): Promise<void>;
  close(): Promise<void>;
}

/** lmdb-js directly: one transaction per create, the relay and each consumer one per batch. */
function bareBackEnd(dataDir: string, subscriptions: Map<string, string[]>): BackEnd {
  const db = open({ path: dataDir });
  const next = { reservations: 0, guests: 0 };
  const append = (topic: keyof typeof next, bytes: Uint8Array) => void db.put(`bus/${topic}/${pad(next[topic]++)}`, bytes);
  const consumer = (name: string, topic: keyof typeof next, apply: (bytes: Uint8Array) => void, after?: () => void) => {
    let offset = 0;
    return soon(async () => {
      const applied = await db.transaction(() => {
        let n = 0;
        for (const { value } of db.getRange({ start: `bus/${topic}/${pad(offset)}`, end: `bus/${topic}/~` })) {
          apply(value as Uint8Array);
          n++;
        }
        offset += n;
        if (n) void db.put(`offset/${name}/${topic}`, offset);
        return n;
      });
      if (applied) after?.();
    });
  };
  const intake = (workspaceId: string) => {
    for (const subscription of subscriptions.get(workspaceId) ?? []) void db.put(`delivery/${subscription}/${randomUUID()}`, { at: Date.now() });
  };
  const webhookGuests = consumer('webhook', 'guests', (bytes) => intake(gpb.GuestEvent.decode(bytes).workspaceId));
  const webhookReservations = consumer('webhook', 'reservations', (bytes) => intake(epb.ReservationEvent.decode(bytes).workspaceId));
  const guests = consumer(
    'guest',
    'reservations',
    (bytes) => {
      const event = epb.ReservationEvent.decode(bytes);
      const key = `guest/${event.workspaceId}/${event.reservation!.primaryGuest!.email.toLowerCase()}`;
      const { guest, event: guestEvent } = guestOf(event, (db.get(key) as StoredGuest | undefined) ?? null);
      void db.put(key, gspb.Guest.toJSON(guest));
      void db.put(`stay-guest/${event.reservation!.id}`, guest.id);
      void db.put(`conversation/${event.reservation!.id}`, { guestId: guest.id, messages: [] });
      append('guests', guestEvent);
    },
    webhookGuests,
  );
  let outboxSeq = 0;
  const relay = soon(async () => {
    const moved = await db.transaction(() => {
      let n = 0;
      for (const { key, value } of db.getRange({ start: 'outbox/', end: 'outbox/~' })) {
        append('reservations', value as Uint8Array);
        void db.remove(key);
        n++;
      }
      return n;
    });
    if (moved) {
      guests();
      webhookReservations();
    }
  });
  // One process owns the database: the running claims are in a Map, the recorded responses on disk.
  const running = new Map<string, string>();
  return {
    async claim(id, fingerprint) {
      const stored = db.get(`edge/${id}`) as { fingerprint: string; response: Recorded } | undefined;
      if (stored) return stored;
      if (running.has(id)) return { running: true };
      running.set(id, fingerprint);
      return { claimed: true };
    },
    async record(id, response) {
      await db.put(`edge/${id}`, { fingerprint: running.get(id) ?? '', response });
      running.delete(id);
    },
    async release(id) {
      running.delete(id);
    },
    async create(req, fingerprint, calendar) {
      const reservation = newReservation(req, calendar);
      const keyOf = `key/${req.workspaceId}/${req.idempotencyKey}`;
      const nights = calendar.days.map((d) => `night/${req.reservation!.propertyId}/${d.date}`);
      const code = `code/${req.workspaceId}/${reservation.confirmationCode}`;
      const outcome = await db.transaction(() => {
        const earlier = req.idempotencyKey ? (db.get(keyOf) as { id: string; fingerprint: string } | undefined) : undefined;
        if (earlier) return earlier.fingerprint === fingerprint ? { earlier: earlier.id } : { conflict: true };
        if (nights.some((night) => db.get(night) !== undefined) || db.get(code) !== undefined) return { taken: true };
        void db.put(code, reservation.id);
        for (const night of nights) void db.put(night, reservation.id);
        void db.put(`reservation/${req.workspaceId}/${reservation.id}`, pb.Reservation.toJSON(reservation));
        if (req.idempotencyKey) void db.put(keyOf, { id: reservation.id, fingerprint });
        void db.put(`outbox/${pad(outboxSeq++)}`, createdEvent(reservation));
        return {};
      });
      if (outcome.taken) throw refused('dates_unavailable', 409);
      if (outcome.conflict) throw refused('idempotency_conflict', 409);
      await db.flushed;
      if (outcome.earlier) return pb.Reservation.fromJSON(db.get(`reservation/${req.workspaceId}/${outcome.earlier}`));
      relay();
      return reservation;
    },
    close: () => db.close(),
  };
}

// The rules back end's collections: the least fields, the unique indexes the steps rely on.
const mixed = Schema.Types.Mixed;
const reservationSchema = new Schema({ _id: String, workspaceId: String, confirmationCode: String, doc: mixed });
reservationSchema.index({ workspaceId: 1, confirmationCode: 1 }, { unique: true });
const nightSchema = new Schema({ _id: String, reservationId: String });
const appliedSchema = new Schema({ _id: String, reservationId: String, fingerprint: String });
// Bytes are kept as base64 strings, as the platform's outbox keeps them.
const outboxSchema = new Schema({ _id: String, topic: String, key: String, value: String });
const guestSchema = new Schema({ _id: String, workspaceId: String, email: String, doc: mixed });
guestSchema.index({ workspaceId: 1, email: 1 }, { unique: true });
const linkSchema = new Schema({ _id: String, guestId: String });
const conversationSchema = new Schema({ _id: String, guestId: String, messages: [mixed] });
const processedSchema = new Schema({ _id: String });
const edgeRecordSchema = new Schema({ _id: String, fingerprint: String, state: String, status: Number, etag: String, body: String });
const subscriptionSchema = new Schema({ _id: String, workspaceId: String });
subscriptionSchema.index({ workspaceId: 1 });
const deliverySchema = new Schema({ _id: String, subscriptionId: String, event: String });

/** The embedded engines: a store per service database and the bus, all in the data directory's journal. */
async function rulesBackEnd(dataDir: string): Promise<BackEnd> {
  const bus = createEmbeddedBus(dataDir);
  await bus.ensureTopics([TOPICS.reservationEvents, TOPICS.guestEvents]);
  const reservations = createEmbeddedStore('reservation', dataDir);
  const guests = createEmbeddedStore('guest', dataDir);
  const webhooks = createEmbeddedStore('webhook', dataDir);
  const gateway = createEmbeddedStore('gateway', dataDir);
  const col = <T extends Doc>(store: DocumentStore, name: string, schema: Schema) => store.collection<T>({ name, schema });
  const r = {
    reservations: col<{ _id: string; workspaceId: string; confirmationCode: string; doc: unknown }>(reservations, 'reservations', reservationSchema),
    nights: col<{ _id: string; reservationId: string }>(reservations, 'nights', nightSchema),
    applied: col<{ _id: string; reservationId: string; fingerprint: string }>(reservations, 'applied_requests', appliedSchema),
    outbox: col<{ _id: string; topic: string; key: string; value: string }>(reservations, 'outbox', outboxSchema),
  };
  const g = {
    guests: col<{ _id: string; workspaceId: string; email: string; doc: unknown }>(guests, 'guests', guestSchema),
    links: col<{ _id: string; guestId: string }>(guests, 'links', linkSchema),
    conversations: col<{ _id: string; guestId: string; messages: unknown[] }>(guests, 'conversations', conversationSchema),
    processed: col<{ _id: string }>(guests, 'processed', processedSchema),
    outbox: col<{ _id: string; topic: string; key: string; value: string }>(guests, 'outbox', outboxSchema),
  };
  const w = {
    subscriptions: col<{ _id: string; workspaceId: string }>(webhooks, 'subscriptions', subscriptionSchema),
    deliveries: col<{ _id: string; subscriptionId: string; event: string }>(webhooks, 'deliveries', deliverySchema),
    processed: col<{ _id: string }>(webhooks, 'processed', processedSchema),
  };
  const edge = col<{ _id: string; fingerprint: string; state: string; status: number; etag: string; body: string }>(
    gateway,
    'idempotency_records',
    edgeRecordSchema,
  );
  await Promise.all([reservations.init(), guests.init(), webhooks.init(), gateway.init()]);

  let outboxSeq = 0;
  let closed = false;
  const relayOf = (outbox: typeof r.outbox) =>
    soon(async () => {
      if (closed) return;
      const rows = await outbox.find({}, { sort: { _id: 1 }, limit: 500 });
      if (rows.length === 0) return;
      for (const topic of new Set(rows.map((row) => row.topic))) {
        await bus.publish(
          topic,
          rows.filter((row) => row.topic === topic).map((row) => ({ key: row.key, value: Buffer.from(row.value, 'base64') })),
        );
      }
      await outbox.deleteMany({ _id: { $in: rows.map((row) => row._id) } });
    });
  const relayReservations = relayOf(r.outbox);
  const relayGuests = relayOf(g.outbox);

  /** The writes of one guest, one at a time (events of one guest come from every partition; concurrent ones would conflict). */
  const chains = new Map<string, Promise<unknown>>();
  const oneAtATime = <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const run = (chains.get(key) ?? Promise.resolve()).then(work, work);
    const tail = run.catch(() => undefined);
    chains.set(key, tail);
    void tail.then(() => chains.get(key) === tail && chains.delete(key));
    return run;
  };
  /** Whether this event is new to the consumer, marking it processed (read, then write: a write error would abort the transaction). */
  const once = async (processed: typeof g.processed, tx: Tx, id: string) => {
    if (await processed.findOne({ _id: id }, { tx })) return false;
    await processed.insertOne({ _id: id }, { tx });
    return true;
  };
  const intake = async (workspaceId: string, id: string, event: Uint8Array) => {
    await webhooks.transaction(async (tx) => {
      if (!(await once(w.processed, tx, id))) return;
      for (const s of await w.subscriptions.find({ workspaceId }, { tx }))
        await w.deliveries.insertOne({ _id: `${s._id}:${id}`, subscriptionId: s._id, event: Buffer.from(event).toString('base64') }, { tx });
    });
  };
  await bus.subscribe({
    groupId: 'webhook',
    topics: [TOPICS.reservationEvents.name, TOPICS.guestEvents.name],
    fromBeginning: true,
    handler: async (m) => {
      const event = m.topic === TOPICS.guestEvents.name ? gpb.GuestEvent.decode(m.value) : epb.ReservationEvent.decode(m.value);
      await intake(event.workspaceId, event.eventId, m.value);
    },
  });
  await bus.subscribe({
    groupId: 'guest',
    topics: [TOPICS.reservationEvents.name],
    fromBeginning: true,
    handler: async (m) => {
      const event = epb.ReservationEvent.decode(m.value);
      const published = await oneAtATime(`${event.workspaceId}/${event.reservation!.primaryGuest!.email.toLowerCase()}`, () =>
        guests.transaction(async (tx) => {
          if (!(await once(g.processed, tx, event.eventId))) return false;
          const email = event.reservation!.primaryGuest!.email.toLowerCase();
          const found = await g.guests.findOne({ workspaceId: event.workspaceId, email }, { tx });
          const { guest, event: guestEvent } = guestOf(event, found ? (found.doc as StoredGuest) : null);
          const doc = { _id: guest.id, workspaceId: event.workspaceId, email, doc: gspb.Guest.toJSON(guest) };
          if (found) await g.guests.updateOne({ _id: found._id }, { $set: { doc: doc.doc } }, { tx });
          else await g.guests.insertOne(doc, { tx });
          await g.links.insertOne({ _id: event.reservation!.id, guestId: guest.id }, { tx });
          await g.conversations.insertOne({ _id: event.reservation!.id, guestId: guest.id, messages: [] }, { tx });
          await g.outbox.insertOne(
            { _id: `${Date.now()}:${pad(outboxSeq++)}`, topic: TOPICS.guestEvents.name, key: guest.id, value: Buffer.from(guestEvent).toString('base64') },
            { tx },
          );
          return true;
        }),
      );
      if (published) relayGuests();
    },
  });

  return {
    async claim(id, fingerprint) {
      try {
        await edge.insertOne({ _id: id, fingerprint, state: 'running', status: 0, etag: '', body: '' }, { journal: false });
        return { claimed: true };
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
        const stored = await edge.findOne({ _id: id });
        if (!stored || stored.state === 'running') return { running: true };
        return { fingerprint: stored.fingerprint, response: { status: stored.status, etag: stored.etag, body: stored.body } };
      }
    },
    async record(id, response) {
      await edge.updateOne({ _id: id }, { $set: { state: 'done', ...response } });
    },
    async release(id) {
      await edge.deleteOne({ _id: id, state: 'running' }, { journal: false });
    },
    async create(req, fingerprint, calendar) {
      const reservation = newReservation(req, calendar);
      const keyId = `${req.workspaceId}:${req.idempotencyKey}`;
      const outcome = await reservations
        .transaction(async (tx) => {
          const earlier = req.idempotencyKey ? await r.applied.findOne({ _id: keyId }, { tx }) : null;
          if (earlier) return earlier.fingerprint === fingerprint ? { earlier: earlier.reservationId } : { conflict: true };
          // A held night is a duplicate key, which aborts the transaction.
          await r.nights.insertMany(
            calendar.days.map((d) => ({ _id: `${req.workspaceId}:${reservation.propertyId}:${d.date}`, reservationId: reservation.id })),
            { tx },
          );
          await r.reservations.insertOne(
            { _id: reservation.id, workspaceId: req.workspaceId, confirmationCode: reservation.confirmationCode, doc: pb.Reservation.toJSON(reservation) },
            { tx },
          );
          if (req.idempotencyKey) await r.applied.insertOne({ _id: keyId, reservationId: reservation.id, fingerprint }, { tx });
          await r.outbox.insertOne(
            {
              _id: `${Date.now()}:${pad(outboxSeq++)}`,
              topic: TOPICS.reservationEvents.name,
              key: reservation.propertyId,
              value: Buffer.from(createdEvent(reservation)).toString('base64'),
            },
            { tx },
          );
          return {};
        })
        .catch((err: unknown) => {
          if (err instanceof DuplicateKeyError) throw refused('dates_unavailable', 409);
          throw err;
        });
      if (outcome.conflict) throw refused('idempotency_conflict', 409);
      if (outcome.earlier) {
        const stored = await r.reservations.findOne({ _id: outcome.earlier });
        return pb.Reservation.fromJSON(stored!.doc);
      }
      relayReservations();
      return reservation;
    },
    close: async () => {
      closed = true;
      await bus.close();
      await Promise.all([reservations.close(), guests.close(), webhooks.close(), gateway.close()]);
    },
  };
}

process.once('message', (setup: Setup) => {
  void serve(setup);
});

async function serve({ dataDir, rules, apiKey, listingIds }: Setup): Promise<void> {
  const workspaceId = 'ws_least';
  const keys = new Map([[sha256(apiKey), workspaceId]]);
  const limiter = new RateLimiterMemory({ points: 100_000, duration: 1 });
  const listings = new Map(listingIds.map((id) => [`${workspaceId}/${id}`, { id, active: true }]));
  const backEnd = rules ? await rulesBackEnd(dataDir) : bareBackEnd(dataDir, new Map([[workspaceId, []]]));
  const call = rules ? breakerCall() : plainCall;
  const context = new AsyncLocalStorage<{ requestId: string; workspaceId: string }>();

  // The reservation service: the listing (404 unless active), its calendar, then the back end's create.
  const createReservation = async (req: pb.CreateReservationRequest): Promise<pb.CreateReservationResponse> => {
    const input = req.reservation!;
    const listing = listings.get(`${req.workspaceId}/${input.propertyId}`);
    if (!listing?.active) throw refused('not_found', 404);
    const calendar = await call('listing', lpb.GetCalendarRequest, lpb.GetCalendarResponse, getCalendar, {
      workspaceId: req.workspaceId,
      listingId: listing.id,
      from: input.checkIn,
      to: dayAfter(input.checkOut, -1),
      calendarOnly: true,
    });
    return { reservation: await backEnd.create(req, sha256(pb.NewReservation.encode(input).finish()), calendar) };
  };

  const handle = async (req: express.Request, res: express.Response): Promise<void> => {
    const workspace = keys.get(sha256(String(req.headers.authorization).slice('Bearer '.length)));
    if (!workspace) return void res.status(401).json({ error: { code: 'unauthorized' } });
    try {
      await limiter.consume(workspace);
    } catch {
      return void res.status(429).json({ error: { code: 'rate_limited' } });
    }
    const parsed = createReservationBody.safeParse(req.body);
    if (!parsed.success) return void res.status(400).json({ error: { code: 'validation_failed' } });
    const key = String(req.headers['idempotency-key'] ?? '');
    const recordId = `${workspace}:${key}`;
    if (key) {
      const fingerprint = sha256(`POST /v1/reservations\n${JSON.stringify(req.body)}`);
      const claim = await backEnd.claim(recordId, fingerprint);
      if ('running' in claim) return void res.status(409).json({ error: { code: 'idempotency_in_progress' } });
      if ('response' in claim) {
        if (claim.fingerprint !== fingerprint) return void res.status(409).json({ error: { code: 'idempotency_conflict' } });
        return void send(res.setHeader('idempotent-replayed', 'true'), claim.response);
      }
    }
    let response: Recorded;
    try {
      const reply = await call('reservation', pb.CreateReservationRequest, pb.CreateReservationResponse, createReservation, {
        workspaceId: workspace,
        idempotencyKey: key,
        reservation: toNewReservation(parsed.data),
      });
      response = { status: 201, etag: `"${reply.reservation!.version}"`, body: JSON.stringify({ data: toApiReservation(reply.reservation!) }) };
    } catch (err) {
      const status = (err as { status?: number }).status ?? 500;
      if (status >= 500) {
        if (key) await backEnd.release(recordId);
        return void res.status(status).json({ error: { code: (err as Error).message } });
      }
      response = { status, etag: '', body: JSON.stringify({ error: { code: (err as Error).message } }) };
    }
    if (key) await backEnd.record(recordId, response);
    send(res, response);
  };
  const send = (res: express.Response, { status, etag, body }: Recorded) => {
    if (etag) res.setHeader('etag', etag);
    res.status(status).type('json').send(body);
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json());
  app.post('/v1/reservations', (req, res) => (rules ? context.run({ requestId: randomUUID(), workspaceId }, () => handle(req, res)) : handle(req, res)));
  const server = http.createServer(app);
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('disconnect', () => {
    void backEnd.close().finally(() => process.exit(0));
  });
}
