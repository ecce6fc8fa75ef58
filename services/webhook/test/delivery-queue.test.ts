// The delivery queue's head under concurrent transactions, on the embedded store (as strict as
// MongoDB's snapshot isolation): an event queued while the current head completes must become
// the next head, whichever transaction commits first.
import type { ListingActivityCache } from '@vrp/activity-cache';
import { createLogger } from '@vrp/platform/logging';
import { createMemoryStore } from '@vrp/engines/store';
import { sortableId } from '@vrp/platform/ids';
import { holdOpen } from '@vrp/engines/store-contract';
import { newDelivery, type DeliveryRecord, type WebhookEvent } from '../src/domain/delivery';
import { newSubscription, SUCCESS_RECORD_WINDOW_MS } from '../src/domain/subscription';
import { ManualClock, systemClock, type WebhookClock } from '../src/ports/clock';
import type { Sender } from '../src/ports/http-sender';
import { DeliveryStore } from '../src/store/delivery-store';
import { SubscriptionStore } from '../src/store/subscription-store';
import { DEFAULT_SCHEDULER_OPTIONS, DeliveryScheduler, type SchedulerOptions } from '../src/use-cases/delivery-scheduler';
import { eventually } from './receiver';

const SUB = 'whs_queue';
const LISTING = 'lst_queue';

function eventAndDelivery(n: number): { event: WebhookEvent; delivery: DeliveryRecord } {
  const now = new Date();
  const event: WebhookEvent = {
    id: `evt_${n}`,
    workspaceId: 'ws_q',
    type: 'reservation.updated',
    listingId: LISTING,
    orderKey: LISTING,
    occurredAt: now,
    body: `{"n":${n}}`,
  };
  const delivery = newDelivery(sortableId('whd'), SUB, event, now);
  return { event, delivery };
}

/** A store with the delivery queue and one enabled subscription (id SUB). */
async function queueOfOneSubscription() {
  const store = createMemoryStore();
  const deliveries = new DeliveryStore(store);
  const subscriptions = new SubscriptionStore(store);
  const subscription = await subscriptions.insert({
    ...newSubscription('ws_q', 'test', { url: 'http://127.0.0.1:9/hooks', description: '', eventTypes: [], enabled: true }, new Date()),
    id: SUB,
  });
  return { store, deliveries, subscriptions, subscription };
}

/** A scheduler over the queue, every listing active, with a test sender (and the system clock and default options unless given). */
function schedulerOver(
  deliveries: DeliveryStore,
  subscriptions: SubscriptionStore,
  sender: Sender,
  given: { clock?: WebhookClock; options?: Partial<SchedulerOptions> } = {},
): DeliveryScheduler {
  return new DeliveryScheduler({
    deliveries,
    subscriptions,
    cache: { isActive: () => true } as unknown as ListingActivityCache,
    clock: given.clock ?? systemClock,
    sender,
    policyOf: (mode) => ({ mode, allowLoopbackInTest: true }),
    logger: createLogger('webhook', 'silent'),
    options: { ...DEFAULT_SCHEDULER_OPTIONS, ...given.options },
  });
}

async function heads(deliveries: DeliveryStore): Promise<string[]> {
  const docs = await deliveries.deliveries.find({ subscriptionId: SUB, head: true, status: { $in: ['pending', 'delivering'] } });
  return docs.map((d) => d._id);
}

describe('delivery queue head under concurrent transactions', () => {
  it('an event queued while the head completes becomes the next head (no stuck queue)', async () => {
    const store = createMemoryStore();
    const deliveries = new DeliveryStore(store);
    const first = eventAndDelivery(1);
    await store.transaction((tx) => deliveries.enqueue(first.event, [first.delivery], tx));
    expect(await deliveries.claim(first.delivery.id, new Date(Date.now() + 60_000))).not.toBeNull();

    // The second event's transaction has decided "not head: the first is still open" and is not
    // committed yet, when the first delivery succeeds.
    const second = eventAndDelivery(2);
    const enqueueing = await holdOpen(store, (tx) => deliveries.enqueue(second.event, [second.delivery], tx));
    const completing = deliveries.complete(first.delivery, { status: 'succeeded', completedAt: new Date() });
    await Promise.race([completing, new Promise((resolve) => setImmediate(resolve))]); // let it run as far as it can
    await enqueueing.commit();
    await completing;

    expect(await heads(deliveries)).toEqual([second.delivery.id]);
    expect((await deliveries.due(new Date(Date.now() + 1000), 10)).map((d) => d.id)).toEqual([second.delivery.id]);
  });

  it('a settlement that finds a next delivery hands over to it without the queue turn, and an enqueue running meanwhile waits behind it', async () => {
    const store = createMemoryStore();
    const deliveries = new DeliveryStore(store);
    const [first, second, third] = [1, 2, 3].map(eventAndDelivery) as [
      ReturnType<typeof eventAndDelivery>,
      ReturnType<typeof eventAndDelivery>,
      ReturnType<typeof eventAndDelivery>,
    ];
    await store.transaction((tx) => deliveries.enqueue(first.event, [first.delivery], tx));
    await store.transaction((tx) => deliveries.enqueue(second.event, [second.delivery], tx));
    expect(await deliveries.claim(first.delivery.id, new Date(Date.now() + 60_000))).not.toBeNull();

    const enqueueing = await holdOpen(store, (tx) => deliveries.enqueue(third.event, [third.delivery], tx));
    const handover = await deliveries.complete(first.delivery, { status: 'succeeded', completedAt: new Date() });
    await enqueueing.commit();

    expect(handover.next?.id).toBe(second.delivery.id);
    expect(await heads(deliveries)).toEqual([second.delivery.id]);
    expect(await deliveries.claim(second.delivery.id, new Date(Date.now() + 60_000))).not.toBeNull();
    expect((await deliveries.complete(second.delivery, { status: 'succeeded', completedAt: new Date() })).next?.id).toBe(third.delivery.id);
    expect(await heads(deliveries)).toEqual([third.delivery.id]);
  });

  it('a settlement claims the next due head in its own write; release gives back only a claim with that lease', async () => {
    const store = createMemoryStore();
    const deliveries = new DeliveryStore(store);
    const first = eventAndDelivery(1);
    const second = eventAndDelivery(2);
    await store.transaction((tx) => deliveries.enqueue(first.event, [first.delivery], tx));
    await store.transaction((tx) => deliveries.enqueue(second.event, [second.delivery], tx));
    expect(await deliveries.claim(first.delivery.id, new Date(Date.now() + 60_000))).not.toBeNull();

    const lease = new Date(Date.now() + 60_000);
    const handover = await deliveries.complete(
      first.delivery,
      { status: 'succeeded', completedAt: new Date() },
      { dueBy: new Date(Date.now() + 1000), leaseUntil: lease },
    );
    expect(handover).toMatchObject({ claimed: true, next: { id: second.delivery.id, status: 'delivering' } });
    const stored = await deliveries.deliveries.findOne({ _id: second.delivery.id });
    expect(stored).toMatchObject({ status: 'delivering', head: true, leaseUntil: lease });
    // Claimed already: no other sender takes it.
    expect(await deliveries.claim(second.delivery.id, new Date(Date.now() + 60_000))).toBeNull();

    await deliveries.release(second.delivery.id, new Date(lease.getTime() + 1));
    expect(await deliveries.deliveries.findOne({ _id: second.delivery.id })).toMatchObject({ status: 'delivering' });
    await deliveries.release(second.delivery.id, lease);
    expect(await deliveries.deliveries.findOne({ _id: second.delivery.id })).toMatchObject({ status: 'pending', head: true, leaseUntil: null });
  });

  it('a settlement whose claim was lost (its lease ran out, another sender settled it and holds the next) makes no second head', async () => {
    const store = createMemoryStore();
    const deliveries = new DeliveryStore(store);
    const [first, second, third] = [eventAndDelivery(1), eventAndDelivery(2), eventAndDelivery(3)];
    for (const { event, delivery } of [first, second, third]) await store.transaction((tx) => deliveries.enqueue(event, [delivery], tx));
    // Sender A claims the head, stalls past its lease; the claim goes back and sender B takes it.
    expect(await deliveries.claim(first.delivery.id, new Date(Date.now() + 60_000))).not.toBeNull();
    expect(await deliveries.releaseExpiredClaims(new Date(Date.now() + 120_000))).toBe(1);
    expect(await deliveries.claim(first.delivery.id, new Date(Date.now() + 180_000))).not.toBeNull();
    // B settles it and, in the same write, claims the next head for itself.
    const claim = { dueBy: new Date(Date.now() + 1000), leaseUntil: new Date(Date.now() + 60_000) };
    expect(await deliveries.complete(first.delivery, { status: 'succeeded', completedAt: new Date() }, claim)).toMatchObject({
      claimed: true,
      next: { id: second.delivery.id },
    });
    // A's late settlement matches nothing: the queue's head is still B's claim, and only it.
    expect(await deliveries.complete(first.delivery, { status: 'succeeded', completedAt: new Date() }, claim)).toMatchObject({
      claimed: false,
      next: { id: second.delivery.id, status: 'delivering' },
    });
    expect(await heads(deliveries)).toEqual([second.delivery.id]);
    expect(await deliveries.deliveries.findOne({ _id: third.delivery.id })).toMatchObject({ status: 'pending', head: false });
  });

  it('a settlement does not claim a next head that is not due yet', async () => {
    const store = createMemoryStore();
    const deliveries = new DeliveryStore(store);
    const first = eventAndDelivery(1);
    const later = eventAndDelivery(2);
    later.delivery.nextAttemptAt = new Date(Date.now() + 60_000);
    await store.transaction((tx) => deliveries.enqueue(first.event, [first.delivery], tx));
    await store.transaction((tx) => deliveries.enqueue(later.event, [later.delivery], tx));
    expect(await deliveries.claim(first.delivery.id, new Date(Date.now() + 60_000))).not.toBeNull();

    const handover = await deliveries.complete(
      first.delivery,
      { status: 'succeeded', completedAt: new Date() },
      { dueBy: new Date(), leaseUntil: new Date(Date.now() + 60_000) },
    );
    expect(handover).toMatchObject({ claimed: false, next: { id: later.delivery.id, status: 'pending' } });
    expect(await heads(deliveries)).toEqual([later.delivery.id]);
  });

  it('a graceful stop gives back the claim a settlement handed over: the next delivery is pending again, not held until its lease ends', async () => {
    const { store, deliveries, subscriptions, subscription } = await queueOfOneSubscription();
    const first = eventAndDelivery(1);
    const second = eventAndDelivery(2);
    first.delivery.subscriptionId = second.delivery.subscriptionId = subscription.id;
    await store.transaction((tx) => deliveries.enqueue(first.event, [first.delivery], tx));
    await store.transaction((tx) => deliveries.enqueue(second.event, [second.delivery], tx));

    const sent: string[] = [];
    let answer: () => void = () => undefined;
    const sender: Sender = (request) => {
      sent.push(request.headers['vrp-delivery-id']!);
      return new Promise((resolve) => (answer = () => resolve({ kind: 'response', status: 200, body: '', durationMs: 1 })));
    };
    const scheduler = schedulerOver(deliveries, subscriptions, sender);
    scheduler.start();
    await eventually(() => sent.length === 1, 'the first attempt in flight');
    // Stopping while it is in flight: its settlement still claims the next head for this scheduler,
    // which will not send it now and must give the claim back.
    const stopping = scheduler.stop();
    answer();
    await stopping;

    expect(sent).toEqual([first.delivery.id]);
    expect(await deliveries.deliveries.findOne({ _id: first.delivery.id })).toMatchObject({ status: 'succeeded' });
    expect(await deliveries.deliveries.findOne({ _id: second.delivery.id })).toMatchObject({ status: 'pending', head: true, leaseUntil: null });
    expect((await deliveries.due(new Date(Date.now() + 1000), 10)).map((d) => d.id)).toEqual([second.delivery.id]);
  });
});

describe('queue heads claimed by their enqueue', () => {
  it('an enqueue with claim terms stores a new head due by then as claimed, and leaves a delivery behind another (or not due) pending', async () => {
    const store = createMemoryStore();
    const deliveries = new DeliveryStore(store);
    const [first, second] = [1, 2].map(eventAndDelivery) as [ReturnType<typeof eventAndDelivery>, ReturnType<typeof eventAndDelivery>];
    const lease = new Date(Date.now() + 60_000);
    const claim = { dueBy: new Date(Date.now() + 1000), leaseUntil: lease };
    const claimedFirst = await store.transaction((tx) => deliveries.enqueue(first.event, [first.delivery], tx, claim));
    const claimedSecond = await store.transaction((tx) => deliveries.enqueue(second.event, [second.delivery], tx, claim));
    expect(claimedFirst).toEqual([expect.objectContaining({ id: first.delivery.id, status: 'delivering' })]);
    expect(claimedSecond).toEqual([]);
    expect(await deliveries.deliveries.findOne({ _id: first.delivery.id })).toMatchObject({ status: 'delivering', head: true, leaseUntil: lease });
    expect(await deliveries.deliveries.findOne({ _id: second.delivery.id })).toMatchObject({ status: 'pending', head: false, leaseUntil: null });
    // The same event again is a duplicate: nothing stored, nothing claimed.
    expect(await store.transaction((tx) => deliveries.enqueue(first.event, [{ ...first.delivery, id: 'whd_other' }], tx, claim))).toBe(false);
    // A head not due by the terms' time stays pending, for the scan.
    const notDue = eventAndDelivery(3);
    notDue.event.orderKey = notDue.delivery.orderKey = 'lst_other';
    notDue.delivery.nextAttemptAt = new Date(Date.now() + 5000);
    expect(await store.transaction((tx) => deliveries.enqueue(notDue.event, [notDue.delivery], tx, claim))).toEqual([]);
    expect(await deliveries.deliveries.findOne({ _id: notDue.delivery.id })).toMatchObject({ status: 'pending', head: true });
  });

  it('the scheduler sends heads offered to it without a claim of its own, and gives back what it is offered once stopped', async () => {
    const { store, deliveries, subscriptions, subscription } = await queueOfOneSubscription();
    let claims = 0;
    const claim = deliveries.claim.bind(deliveries);
    deliveries.claim = (id, leaseUntil) => ((claims += 1), claim(id, leaseUntil));
    const sent: string[] = [];
    const scheduler = schedulerOver(
      deliveries,
      subscriptions,
      async (request) => (sent.push(request.headers['vrp-delivery-id']!), { kind: 'response', status: 200, body: '', durationMs: 1 }),
    );
    expect(scheduler.claimTerms()).toBeNull(); // not started: heads stay pending for a scan
    scheduler.start();
    const enqueueOffered = async (q: ReturnType<typeof eventAndDelivery>) => {
      q.delivery.subscriptionId = subscription.id;
      const terms = scheduler.claimTerms()!;
      const claimed = await store.transaction((tx) => deliveries.enqueue(q.event, [q.delivery], tx, terms));
      if (claimed && claimed.length > 0) scheduler.offer(claimed, terms.leaseUntil);
      return claimed;
    };
    const first = eventAndDelivery(1);
    expect(await enqueueOffered(first)).toHaveLength(1);
    await eventually(() => sent.length === 1, 'the offered head sent');
    await eventually(async () => (await deliveries.deliveries.findOne({ _id: first.delivery.id }))?.status === 'succeeded', 'settled');
    expect(claims).toBe(0);
    await scheduler.stop();

    // Offered to a stopped scheduler: back to pending at once, for the next scan.
    const late = eventAndDelivery(2);
    late.delivery.subscriptionId = subscription.id;
    const lease = new Date(Date.now() + 60_000);
    const claimed = await store.transaction((tx) => deliveries.enqueue(late.event, [late.delivery], tx, { dueBy: new Date(), leaseUntil: lease }));
    expect(claimed).toHaveLength(1);
    scheduler.offer(claimed as DeliveryRecord[], lease);
    await eventually(async () => (await deliveries.deliveries.findOne({ _id: late.delivery.id }))?.status === 'pending', 'given back');
    expect(sent).toEqual([first.delivery.id]);
  });
});

describe('expired claims', () => {
  it('are given back at the first scan and sent; later scans within the check interval do not look for them again', async () => {
    const { store, deliveries, subscriptions, subscription } = await queueOfOneSubscription();
    const [crashed, ...later] = [1, 2, 3, 4].map(eventAndDelivery) as [ReturnType<typeof eventAndDelivery>, ...ReturnType<typeof eventAndDelivery>[]];
    crashed.delivery.subscriptionId = subscription.id;
    await store.transaction((tx) => deliveries.enqueue(crashed.event, [crashed.delivery], tx));
    // A sender claimed it and died: its lease ran out a second ago.
    expect(await deliveries.claim(crashed.delivery.id, new Date(Date.now() - 1000))).not.toBeNull();
    let looks = 0;
    const release = deliveries.releaseExpiredClaims.bind(deliveries);
    deliveries.releaseExpiredClaims = (now) => ((looks += 1), release(now));
    const sent: string[] = [];
    const sender: Sender = async (request) => (sent.push(request.headers['vrp-delivery-id']!), { kind: 'response', status: 200, body: '', durationMs: 1 });
    const scheduler = schedulerOver(deliveries, subscriptions, sender, { options: { expiredClaimsCheckMs: 60_000 } });
    scheduler.start();
    await eventually(() => sent.length === 1, 'the crashed claim sent again');
    for (const { event, delivery } of later) {
      delivery.subscriptionId = subscription.id;
      await store.transaction((tx) => deliveries.enqueue(event, [delivery], tx));
      await scheduler.wake();
    }
    await eventually(() => sent.length === 4, 'the later deliveries sent');
    await scheduler.stop();

    expect(sent).toEqual([crashed, ...later].map((q) => q.delivery.id));
    // Four scans at least (one per wake), one look for expired claims.
    expect(looks).toBe(1);
  });
});

describe('the stored event of a delivery', () => {
  it('is read once for the deliveries that ask for it side by side, then kept; an unknown one is read again', async () => {
    const store = createMemoryStore();
    const deliveries = new DeliveryStore(store);
    const { event, delivery } = eventAndDelivery(1);
    await store.transaction((tx) => deliveries.enqueue(event, [delivery], tx));
    let reads = 0;
    const findOne = deliveries.events.findOne.bind(deliveries.events);
    deliveries.events.findOne = (...args) => ((reads += 1), findOne(...args));

    const side = await Promise.all(Array.from({ length: 20 }, () => deliveries.event(event.id)));
    expect(reads).toBe(1);
    expect(new Set(side).size).toBe(1);
    expect(side[0]).toMatchObject({ id: event.id, body: event.body });
    expect(await deliveries.event(event.id)).toBe(side[0]);
    expect(reads).toBe(1);
    expect(await Promise.all([deliveries.event('evt_none'), deliveries.event('evt_none')])).toEqual([null, null]);
    expect(await deliveries.event('evt_none')).toBeNull();
    expect(reads).toBe(3);
  });
});

describe('the enabled subscriptions an event fans out to', () => {
  it("are the workspace's enabled ones in creation order, read as their ids and event types only", async () => {
    const subscriptions = new SubscriptionStore(createMemoryStore());
    const t0 = new Date('2030-01-01T00:00:00Z');
    const make = (workspaceId: string, ms: number, eventTypes: string[], enabled = true) =>
      subscriptions.insert(
        newSubscription(workspaceId, 'test', { url: 'http://127.0.0.1:1/hook', description: '', eventTypes, enabled }, new Date(t0.getTime() + ms)),
      );
    const later = await make('ws_a', 2, []);
    const first = await make('ws_a', 1, ['reservation.created']);
    await make('ws_a', 3, ['guest.created'], false);
    await make('ws_b', 0, []);
    expect(await subscriptions.enabledOf('ws_a')).toEqual([
      { id: first.id, eventTypes: ['reservation.created'] },
      { id: later.id, eventTypes: [] },
    ]);
  });
});

describe('the last success of an endpoint', () => {
  it('is written by an acknowledged delivery only when the subscription its attempt read has none within the window: one write for three quick successes', async () => {
    const { store, deliveries, subscriptions, subscription } = await queueOfOneSubscription();
    const queued = [1, 2, 3].map(eventAndDelivery);
    for (const { event, delivery } of queued) {
      delivery.subscriptionId = subscription.id;
      await store.transaction((tx) => deliveries.enqueue(event, [delivery], tx));
    }
    const marks: Date[] = [];
    const markSuccess = subscriptions.markSuccess.bind(subscriptions);
    subscriptions.markSuccess = (id, at) => (marks.push(at), markSuccess(id, at));
    const sent: string[] = [];
    const sender: Sender = async (request) => (sent.push(request.headers['vrp-delivery-id']!), { kind: 'response', status: 200, body: '', durationMs: 1 });
    const scheduler = schedulerOver(deliveries, subscriptions, sender, { clock: new ManualClock(new Date()) });
    scheduler.start();
    await eventually(() => sent.length === 3, 'the three deliveries sent');
    await scheduler.stop();

    expect(sent).toEqual(queued.map((q) => q.delivery.id));
    // The first success found none stored and wrote its time; the next two read it, within the
    // window, and made no store call at all.
    expect(marks).toHaveLength(1);
    expect((await subscriptions.getForDelivery(subscription.id))!.lastSuccessAt).toEqual(marks[0]);
  });

  it('is written when absent or older than the window, and not again within it; re-enabling clears it and the next success writes', async () => {
    const subscriptions = new SubscriptionStore(createMemoryStore());
    const t0 = new Date('2030-01-01T00:00:00Z');
    const s = newSubscription('ws_q', 'test', { url: 'http://127.0.0.1:1/hook', description: '', eventTypes: [], enabled: true }, t0);
    await subscriptions.insert(s);
    const at = (ms: number) => new Date(t0.getTime() + ms);
    const stored = async () => (await subscriptions.getForDelivery(s.id))!.lastSuccessAt;

    expect(await subscriptions.markSuccess(s.id, at(0))).toBe(true);
    expect(await stored()).toEqual(at(0));
    // Within the window: nothing written, so the stored time is at most the window behind.
    expect(await subscriptions.markSuccess(s.id, at(SUCCESS_RECORD_WINDOW_MS))).toBe(false);
    expect(await stored()).toEqual(at(0));
    // Past it: written.
    expect(await subscriptions.markSuccess(s.id, at(SUCCESS_RECORD_WINDOW_MS + 1))).toBe(true);
    expect(await stored()).toEqual(at(SUCCESS_RECORD_WINDOW_MS + 1));
    // An earlier success settled late never moves it back.
    expect(await subscriptions.markSuccess(s.id, at(0))).toBe(false);
    expect(await stored()).toEqual(at(SUCCESS_RECORD_WINDOW_MS + 1));
    // Re-enabling an endpoint clears it (see the subscriptions use case); the next success writes at once.
    await subscriptions.update('ws_q', s.id, { lastSuccessAt: null });
    expect(await subscriptions.markSuccess(s.id, at(SUCCESS_RECORD_WINDOW_MS + 2))).toBe(true);
    expect(await stored()).toEqual(at(SUCCESS_RECORD_WINDOW_MS + 2));
  });
});
