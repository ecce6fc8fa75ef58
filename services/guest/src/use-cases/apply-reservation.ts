// A reservation event (created or changed): its primary guest becomes or matches a profile, the
// reservation is linked to it with its listing, and its conversation is opened, all in one
// transaction. Replaying the same reservation changes nothing.
import { newId } from '@vrp/platform/ids';
import { type Tx } from '@vrp/platform/store';
import {
  contactsAfterReservationChange,
  contactSources,
  contactsFrom,
  DEFAULT_LANGUAGE,
  isStaleForLink,
  keysOfContacts,
  linkReservation,
  listingIdsOf,
  matchKeysOf,
  mergeContacts,
  reportedContacts,
  type GuestRecord,
  withListing,
  type ReservationLink,
} from '../domain/guest';
import { newConversation, pmsReservationKey } from '../domain/messaging';
import { guestEvent } from '../publishers/events';
import { type GuestDeps } from './deps';

/** What this service takes from a reservation event: the stay's ids, channel and primary guest. */
export interface ReservationInput {
  id: string;
  /** The listing of the stay. */
  propertyId: string;
  /** The channel it was booked on (the conversation's channel). */
  source: string;
  updatedAt?: Date | undefined;
  pmsProvider?: string;
  pmsExternalId?: string;
  primaryGuest?: { firstName: string; lastName: string; language: string; email: string; phone: string } | undefined;
}

export async function applyReservation(deps: GuestDeps, workspaceId: string, r: ReservationInput): Promise<void> {
  // Reservations of one guest arrive from several partitions at once (they are keyed by listing):
  // applied one after the other in this process, by the guest's match keys, they do not race for
  // the same profile, each conflict costing a transaction run again after a pause.
  const keys = matchKeysOf(primaryContact(r)).map((k) => `${workspaceId}/${k}`);
  await deps.guestOrder.about(keys, () =>
    deps.store.transaction(async (tx) => {
      const { guest, link } = await linkGuest(deps, workspaceId, r, tx);
      await openConversation(deps, workspaceId, r, guest.id, link, tx);
    }),
  );
  deps.outbox.flushSoon();
}

/** The email and phone of a reservation's primary guest ('' when absent), which its matching uses. */
const primaryContact = (r: ReservationInput) => ({ email: r.primaryGuest?.email ?? '', phone: r.primaryGuest?.phone ?? '' });

/**
 * A reservation was created or changed: its primary guest is matched to a profile (same
 * email, else same phone, else a new profile) and the reservation is linked to it with its
 * listing. A reservation already linked keeps its profile; only a change of listing is
 * applied. Returns the profile, the reservation's link as it now stands, and whether anything
 * changed. A new link is one document of its own (GuestStore.putLink) and adds its listing to
 * the profile's: the profile's write does not grow with the guest's stays.
 */
async function linkGuest(
  deps: GuestDeps,
  workspaceId: string,
  r: ReservationInput,
  tx: Tx,
): Promise<{ guest: GuestRecord; link: ReservationLink; changed: boolean }> {
  const primary = primaryContact(r);
  const link: ReservationLink = { reservationId: r.id, listingId: r.propertyId, changedAt: r.updatedAt ?? null, ...primary };
  const now = new Date();
  const linked = await deps.guests.byReservation(workspaceId, r.id, tx);
  if (linked) return followLinkedReservation(deps, workspaceId, linked, link, tx, now);
  const keys = matchKeysOf(primary);
  const matched = await deps.guests.byMatchKeys(workspaceId, keys, tx);
  if (matched) {
    const saved = await deps.guests.save(
      {
        ...matched,
        contacts: mergeContacts(matched.contacts, contactsFrom(primary)),
        listingIds: withListing(matched.listingIds, link.listingId),
        updatedAt: now,
      },
      tx,
    );
    await deps.guests.putLink(workspaceId, saved.id, link, tx);
    await deps.guests.claimKeys(workspaceId, saved.id, keys, tx);
    await deps.outbox.add(tx, [guestEvent(saved, 'updated', now)]);
    return { guest: saved, link, changed: true };
  }
  const created = await deps.guests.insert(
    {
      id: newId('gst'),
      workspaceId,
      // The reservation API requires firstName; a PMS may still send none.
      firstName: r.primaryGuest?.firstName.trim() || 'Guest',
      lastName: r.primaryGuest?.lastName.trim() ?? '',
      language: r.primaryGuest?.language || DEFAULT_LANGUAGE,
      contacts: contactsFrom(primary),
      provider: '',
      externalId: '',
      listingIds: [link.listingId],
      createdAt: now,
      updatedAt: now,
      version: 1,
    },
    tx,
  );
  await deps.guests.putLink(workspaceId, created.id, link, tx);
  await deps.guests.claimKeys(workspaceId, created.id, keys, tx);
  await deps.outbox.add(tx, [guestEvent(created, 'created', now)]);
  return { guest: created, link, changed: true };
}

/**
 * A change of a reservation already linked to `linked`: the link follows a move to another
 * listing, and a new email or phone of its primary guest (a PMS-side change arrives as a
 * reservation change) replaces the one it reported before on the profile
 * (contactsAfterReservationChange; docs/guests.md, "Contact changes from a PMS"). The profile
 * keeps its own name and language. A change not newer than the link (replayed, redelivered, or
 * overtaken) and a change that alters neither changes nothing: no new version, no event.
 */
async function followLinkedReservation(
  deps: GuestDeps,
  workspaceId: string,
  { guest: linked, link: current }: { guest: GuestRecord; link: ReservationLink },
  link: ReservationLink,
  tx: Tx,
  now: Date,
): Promise<{ guest: GuestRecord; link: ReservationLink; changed: boolean }> {
  if (isStaleForLink(current, link.changedAt)) return { guest: linked, link: current, changed: false };
  // The profile's other links are read only here (a change of a linked reservation, not a create).
  const links = await deps.guests.linksOf(workspaceId, linked.id, tx);
  const contacts = contactsAfterReservationChange(linked.contacts, contactSources(links, linked.pmsContacts), link.reservationId, link);
  // A contact the reservation stopped sending keeps its last value on the link (it removes nothing).
  const next: ReservationLink = { ...link, ...reportedContacts(link, current) };
  const moved = current.listingId !== next.listingId;
  if (!moved && !contacts.changed) return { guest: linked, link: current, changed: false };
  const listingIds = moved ? listingIdsOf(linkReservation(links, next)) : linked.listingIds;
  const saved = await deps.guests.save({ ...linked, contacts: contacts.contacts, listingIds, updatedAt: now }, tx);
  await deps.guests.putLink(workspaceId, saved.id, next, tx);
  if (contacts.changed) {
    await deps.guests.releaseKeys(workspaceId, saved.id, keysOfContacts(contacts.dropped), tx);
    await deps.guests.claimKeys(workspaceId, saved.id, matchKeysOf(next), tx);
  }
  await deps.outbox.add(tx, [guestEvent(saved, 'updated', now)]);
  return { guest: saved, link: next, changed: true };
}

/**
 * Opens the conversation of a reservation (one per reservation), or follows the reservation
 * to another listing. Replaying the same reservation changes nothing.
 */
async function openConversation(
  deps: GuestDeps,
  workspaceId: string,
  event: { id: string; propertyId: string; source: string; pmsProvider?: string; pmsExternalId?: string },
  guestId: string,
  link: ReservationLink,
  tx: Tx,
): Promise<void> {
  // The listing is the one the guest's link holds (linkGuest set it, in this transaction): it
  // is version-checked, so a replayed or overtaken older event cannot move the conversation back.
  const r = { ...event, propertyId: link.listingId };
  const pmsReservationId = event.pmsProvider && event.pmsExternalId ? pmsReservationKey(event.pmsProvider, event.pmsExternalId) : '';
  const known =
    (await deps.messaging.conversationOf(workspaceId, { reservationId: r.id }, tx)) ??
    // A PMS thread of this reservation whose first message arrived before the reservation did.
    (pmsReservationId ? await deps.messaging.conversationOf(workspaceId, { pmsReservationId }, tx) : null);
  const now = new Date();
  if (!known) {
    await deps.messaging.insertConversation(
      newConversation({ workspaceId, listingId: r.propertyId, reservationId: r.id, guestId, channel: r.source, externalId: '', pmsReservationId }, now),
      tx,
    );
  } else if (
    known.reservationId !== r.id ||
    known.listingId !== r.propertyId ||
    known.guestId !== guestId ||
    (pmsReservationId && known.pmsReservationId !== pmsReservationId)
  ) {
    await deps.messaging.updateConversation(
      workspaceId,
      known.id,
      { reservationId: r.id, listingId: r.propertyId, guestId, ...(pmsReservationId ? { pmsReservationId } : {}), updatedAt: now },
      tx,
    );
  }
}
