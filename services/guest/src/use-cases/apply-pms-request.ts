// entity=request and entity=inquiry of pms.sync.v1: a reservation request or inquiry as its PMS
// last changed it (older changes are ignored; the PMS echoing an answer made here is no news).
import type { RequestSyncPayload } from '@vrp/contracts';
import { newId } from '@vrp/platform/ids';
import { REQUEST_STATUSES, sameRequest, type RequestKind, type RequestStatus } from '../domain/messaging';
import { date, MalformedChange, type SyncChangeRef } from '../domain/sync-change';
import { requestEvent } from '../publishers/events';
import { type GuestDeps } from './deps';
import { listingOfChange } from './sync-listing';

export async function applyPmsRequest(deps: GuestDeps, change: SyncChangeRef, kind: RequestKind, p: RequestSyncPayload): Promise<void> {
  if (!p.externalId || !p.guest) throw new MalformedChange(`${kind} change ${change.changeId} needs externalId and guest`);
  if (!(REQUEST_STATUSES as readonly string[]).includes(p.status))
    throw new MalformedChange(`${kind} change ${change.changeId}: status '${p.status}' is unknown`);
  const guest = p.guest;
  const listingId = await listingOfChange(deps.pms, change);
  const { workspaceId, provider } = change;
  const sourceUpdatedAt = date(p.updatedAt, 'updatedAt');
  const wrote = await deps.store.transaction(async (tx) => {
    const known = await deps.messaging.requestByExternalId(workspaceId, provider, p.externalId, tx);
    if (known && known.sourceUpdatedAt >= sourceUpdatedAt) return false;
    const now = new Date();
    const saved = await deps.messaging.upsertRequest(
      {
        id: known?.id ?? newId(kind === 'request' ? 'rqs' : 'inq'),
        workspaceId,
        listingId,
        kind,
        status: p.status as RequestStatus,
        guestId: known?.guestId ?? '',
        guestName: `${guest.firstName} ${guest.lastName ?? ''}`.trim(),
        checkIn: p.checkIn,
        checkOut: p.checkOut,
        guests: p.guests,
        message: p.message ?? '',
        channel: p.channel ?? '',
        provider,
        externalId: p.externalId,
        blockInstantBooking: known?.blockInstantBooking ?? false,
        sourceUpdatedAt,
        createdAt: known?.createdAt ?? now,
        updatedAt: now,
      },
      tx,
    );
    // The PMS reporting back what was already applied here (an answer relayed through the
    // API) is no news: no second event.
    if (known && sameRequest(known, saved)) return false;
    await deps.outbox.add(tx, [requestEvent(saved, known ? 'updated' : 'created', now)]);
    return true;
  });
  if (wrote) deps.outbox.flushSoon();
}
