// entity=message of pms.sync.v1: a message of a PMS thread, applied once per (provider, PMS id).
import type { MessageSyncPayload } from '@vrp/contracts';
import { newId } from '@vrp/platform/ids';
import { newConversation, pmsReservationKey, type Direction } from '../domain/messaging';
import { date, MalformedChange, type SyncChangeRef } from '../domain/sync-change';
import { messageEvent } from '../publishers/events';
import { type GuestDeps } from './deps';
import { listingOfChange } from './sync-listing';

export async function applyPmsMessage(deps: GuestDeps, change: SyncChangeRef, p: MessageSyncPayload): Promise<void> {
  if (!p.externalId || !p.conversationExternalId) throw new MalformedChange(`message change ${change.changeId} needs externalId and conversationExternalId`);
  if (p.direction !== 'inbound' && p.direction !== 'outbound')
    throw new MalformedChange(`message change ${change.changeId}: direction '${p.direction}' is unknown`);
  const direction: Direction = p.direction;
  const listingId = await listingOfChange(deps.pms, change);
  const { workspaceId, provider } = change;
  const sentAt = date(p.sentAt, 'sentAt');
  const wrote = await deps.store.transaction(async (tx) => {
    const known = await deps.messaging.messageByExternalId(workspaceId, provider, p.externalId, tx);
    if (known) {
      // A message sent through the API, reported back by the PMS: its thread is now known.
      const own = await deps.messaging.conversation(workspaceId, known.conversationId, tx);
      if (!own.externalId) await deps.messaging.updateConversation(workspaceId, own.id, { externalId: p.conversationExternalId }, tx);
      return false;
    }
    // A PMS thread: found by its PMS id, else the conversation of its PMS reservation (which
    // then learns the thread's id), else a new conversation on the listing.
    let c = await deps.messaging.conversationOf(workspaceId, { externalId: p.conversationExternalId }, tx);
    const pmsReservationId = p.reservationExternalId ? pmsReservationKey(provider, p.reservationExternalId) : '';
    if (!c && pmsReservationId) {
      const ofReservation = await deps.messaging.conversationOf(workspaceId, { pmsReservationId }, tx);
      if (ofReservation) c = await deps.messaging.updateConversation(workspaceId, ofReservation.id, { externalId: p.conversationExternalId }, tx);
    }
    const now = new Date();
    if (!c) {
      c = await deps.messaging.insertConversation(
        newConversation(
          { workspaceId, listingId, reservationId: '', guestId: '', channel: p.channel ?? '', externalId: p.conversationExternalId, pmsReservationId },
          now,
        ),
        tx,
      );
    }
    const message = await deps.messaging.insertMessage(
      {
        id: newId('msg'),
        workspaceId,
        conversationId: c.id,
        listingId: c.listingId,
        direction,
        body: p.body,
        attachments: (p.attachments ?? []).map((a) => ({ url: a.url, name: a.name ?? '', contentType: a.contentType ?? '' })),
        sentAt,
        provider,
        externalId: p.externalId,
      },
      tx,
    );
    const updated = await deps.messaging.noteMessage(c, sentAt, tx);
    await deps.outbox.add(tx, [messageEvent(message, updated, now)]);
    return true;
  });
  if (wrote) deps.outbox.flushSoon();
}
