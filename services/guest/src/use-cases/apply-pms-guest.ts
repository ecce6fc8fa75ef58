// entity=guest of pms.sync.v1: the PMS's own guest profile.
import type { GuestSyncPayload } from '@vrp/contracts';
import { newId } from '@vrp/platform/ids';
import {
  contactsAfterReservationChange,
  contactSources,
  contactsFrom,
  DEFAULT_LANGUAGE,
  keysOfContacts,
  matchKeysOf,
  PMS_GUEST_RECORD,
  reportedContacts,
} from '../domain/guest';
import { date, MalformedChange, type SyncChangeRef } from '../domain/sync-change';
import { guestEvent } from '../publishers/events';
import { type GuestDeps } from './deps';

/**
 * entity=guest of pms.sync.v1: the PMS's profile, found by (provider, external id), else
 * matched by email/phone and linked to the PMS, else created. A change not newer than the one
 * applied last (updatedAt) changes nothing, so replays and out-of-order duplicates are harmless.
 */
export async function applyPmsGuest(deps: GuestDeps, change: SyncChangeRef, payload: GuestSyncPayload): Promise<void> {
  const { workspaceId, provider } = change;
  const sourceUpdatedAt = date(payload.updatedAt, 'updatedAt');
  if (!payload.externalId) throw new MalformedChange('externalId is required');
  const wrote = await deps.store.transaction(async (tx) => {
    const keys = matchKeysOf(payload);
    const known = await deps.guests.byExternalId(workspaceId, provider, payload.externalId, tx);
    if (known?.sourceUpdatedAt && known.sourceUpdatedAt >= sourceUpdatedAt) return false;
    const base = known ?? (await deps.guests.byMatchKeys(workspaceId, keys, tx));
    const now = new Date();
    const fields = {
      firstName: payload.firstName.trim() || base?.firstName || 'Guest',
      lastName: payload.lastName?.trim() ?? base?.lastName ?? '',
      language: payload.language || base?.language || DEFAULT_LANGUAGE,
      provider,
      externalId: payload.externalId,
      updatedAt: now,
    };
    if (base) {
      // The value the PMS's guest record reported before is replaced, as for a reservation's guest.
      const links = await deps.guests.linksOf(workspaceId, base.id, tx);
      const contacts = contactsAfterReservationChange(base.contacts, contactSources(links, base.pmsContacts), PMS_GUEST_RECORD, payload);
      const pmsContacts = reportedContacts(payload, base.pmsContacts);
      const saved = await deps.guests.save({ ...base, ...fields, contacts: contacts.contacts, pmsContacts }, tx, sourceUpdatedAt);
      await deps.guests.releaseKeys(workspaceId, saved.id, keysOfContacts(contacts.dropped), tx);
      await deps.guests.claimKeys(workspaceId, saved.id, keys, tx);
      await deps.outbox.add(tx, [guestEvent(saved, 'updated', now)]);
      return true;
    }
    const created = await deps.guests.insert(
      {
        id: newId('gst'),
        workspaceId,
        ...fields,
        contacts: contactsFrom(payload),
        pmsContacts: reportedContacts(payload, null),
        listingIds: [],
        createdAt: now,
        version: 1,
      },
      tx,
      sourceUpdatedAt,
    );
    await deps.guests.claimKeys(workspaceId, created.id, keys, tx);
    await deps.outbox.add(tx, [guestEvent(created, 'created', now)]);
    return true;
  });
  if (wrote) deps.outbox.flushSoon();
}
