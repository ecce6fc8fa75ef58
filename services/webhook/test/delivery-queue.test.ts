// The delivery queue's head under concurrent transactions, on the embedded store (as strict as
// MongoDB's snapshot isolation): an event queued while the current head completes must become
// the next head, whichever transaction commits first.
import { createMemoryStore, sortableId } from '@vrp/platform';
import { holdOpen } from '@vrp/platform/src/store/contract';
import { newDelivery, type DeliveryRecord, type WebhookEvent } from '../src/domain/delivery';
import { DeliveryStore } from '../src/store/delivery-store';

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
});
