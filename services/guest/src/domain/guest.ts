// Guest profiles: name normalization behind search, the matching rule that ties a
// reservation's primary guest to a profile, and the visibility rule (docs/api.md, "Listings are active or inactive"). No I/O.
import { CONTACT_TYPES, DEFAULT_GUEST_LANGUAGE } from '@vrp/api-model';

export type ContactType = (typeof CONTACT_TYPES)[number];

export interface Contact {
  type: ContactType;
  value: string;
  isPrimary: boolean;
}

/** A reservation of the guest and the listing it is on (the input of the visibility rule). */
export interface ReservationLink {
  reservationId: string;
  listingId: string;
  /**
   * The reservation's updatedAt when this link was last set from its events. Events of one
   * reservation can arrive out of order (a move changes the event key, hence the partition) or
   * again (at-least-once): one not newer than this changes nothing.
   */
  changedAt?: Date | null;
  /**
   * The primary guest's email and phone as the reservation reported them last (raw). A later
   * change of them replaces these values on the profile (see contactsAfterReservationChange);
   * absent on links written before contact changes were followed.
   */
  email?: string;
  phone?: string;
}

/** True when a reservation event changed at `changedAt` is older than (or as old as) the link. */
export function isStaleForLink(link: ReservationLink | undefined, changedAt: Date | null | undefined): boolean {
  if (!link?.changedAt || !changedAt) return false;
  return changedAt.getTime() <= link.changedAt.getTime();
}

export interface GuestRecord {
  id: string;
  workspaceId: string;
  firstName: string;
  lastName: string;
  /** Language preference; `en` by default on create. */
  language: string;
  contacts: Contact[];
  /** PMS the guest is linked to, empty when none. */
  provider: string;
  /** The PMS's id of the guest, empty when none. */
  externalId: string;
  /**
   * The distinct listings of the guest's reservations, in the order they were first linked (the
   * input of the visibility rule). The reservation links themselves are kept one per document
   * (store: guest_reservation_links), so that a guest's write never grows with its stays.
   */
  listingIds: string[];
  createdAt: Date;
  updatedAt: Date;
  /** 1 on create, +1 on every change: the API's ETag and If-Match compare it. */
  version: number;
  /** The email and phone the PMS's own guest record (sync entity `guest`) reported last, if any. */
  pmsContacts?: { email: string; phone: string } | null;
}

export const DEFAULT_LANGUAGE = DEFAULT_GUEST_LANGUAGE;

/** Latin letters that carry their "accent" in the letter itself, so NFD does not split them. */
const FOLDS: Record<string, string> = { ø: 'o', ł: 'l', đ: 'd', ð: 'd', ħ: 'h', ı: 'i', ß: 'ss', æ: 'ae', œ: 'oe', þ: 'th' };

/**
 * The form names are compared in: NFD splits "é" into "e" + a combining mark, which is then
 * dropped, so "José", "JOSE" and "jose" all become "jose"; letters such as "ø" or "ł" that do
 * not decompose are folded by table. Whitespace runs collapse so that "Ana  María" and
 * "ana maria" agree.
 */
export function normalizeName(value: string): string {
  return value
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[øłđðħıßæœþ]/g, (c) => FOLDS[c] ?? c)
    .replace(/\s+/g, ' ')
    .trim();
}

/** The stored, searchable form of a guest's name: normalized "first last". */
export function searchNameOf(guest: Pick<GuestRecord, 'firstName' | 'lastName'>): string {
  return normalizeName(`${guest.firstName} ${guest.lastName}`);
}

/** Emails compare case-insensitively (what every mail provider in practice does). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Phones compare by their digits only, so "+34 600-111-222" and "+34600111222" agree. Fewer
 * than 6 digits is not a usable phone number (an extension, a typo) and never matches anything.
 */
export function normalizePhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  return digits.length >= 6 ? digits : '';
}

/**
 * The matching rule, in priority order: a profile of the same workspace with the same email
 * (case-insensitive), else one with the same phone (digits only), else none (a new profile).
 * Keys are namespaced so an email can never collide with a phone.
 */
export function matchKeysOf(contact: { email?: string; phone?: string }): string[] {
  const keys: string[] = [];
  const email = normalizeEmail(contact.email ?? '');
  const phone = normalizePhone(contact.phone ?? '');
  if (email) keys.push(`email:${email}`);
  if (phone) keys.push(`phone:${phone}`);
  return keys;
}

/** The match keys of some contacts (those a profile gives up are released). */
export function keysOfContacts(contacts: Contact[]): string[] {
  return contacts.flatMap((c) => matchKeysOf(c.type === 'EMAIL' ? { email: c.value } : { phone: c.value }));
}

/** The contacts of a new profile: email first (primary), then phone. */
export function contactsFrom(contact: { email?: string; phone?: string }): Contact[] {
  const out: Contact[] = [];
  const email = contact.email?.trim();
  const phone = contact.phone?.trim();
  if (email) out.push({ type: 'EMAIL', value: email, isPrimary: true });
  if (phone) out.push({ type: 'PHONE', value: phone, isPrimary: out.length === 0 });
  return out;
}

/** Adds the contacts a matched profile does not have yet (never removes or reorders). */
export function mergeContacts(existing: Contact[], incoming: Contact[]): Contact[] {
  const has = (c: Contact) =>
    existing.some(
      (e) =>
        e.type === c.type && (c.type === 'EMAIL' ? normalizeEmail(e.value) === normalizeEmail(c.value) : normalizePhone(e.value) === normalizePhone(c.value)),
    );
  const added = incoming.filter((c) => !has(c)).map((c) => ({ ...c, isPrimary: existing.length === 0 && c.isPrimary }));
  return [...existing, ...added];
}

/** Records (or moves) one reservation of the guest; the same link twice changes nothing. */
export function linkReservation(links: ReservationLink[], link: ReservationLink): ReservationLink[] {
  const others = links.filter((l) => l.reservationId !== link.reservationId);
  return [...others, link];
}

export function listingIdsOf(links: ReservationLink[]): string[] {
  return [...new Set(links.map((l) => l.listingId))];
}

/** The guest's listings once a new reservation on `listingId` is linked (no link moved or removed). */
export function withListing(listingIds: string[], listingId: string): string[] {
  return listingIds.includes(listingId) ? listingIds : [...listingIds, listingId];
}

/**
 * Visibility: a guest who has reservations, all on inactive listings, is hidden from
 * collections and is listing_inactive on direct reads (naming those listings). A guest without
 * reservations, or with at least one on an active listing, is visible. Returns the inactive
 * listings that hide the guest, or null when the guest is visible.
 */
export function hidingListings<L extends { id: string }>(listingIds: string[], inactive: L[]): L[] | null {
  if (listingIds.length === 0) return null;
  const inactiveIds = new Set(inactive.map((l) => l.id));
  return listingIds.every((id) => inactiveIds.has(id)) ? inactive : null;
}

/** The source id of the PMS's own guest record among a profile's sources of contacts. */
export const PMS_GUEST_RECORD = 'pms:guest';

/** Every source of a profile's contacts with what it reported last: its reservations, and the PMS's guest record. */
export function contactSources(links: ReservationLink[], pmsContacts: GuestRecord['pmsContacts']): ReservationLink[] {
  return pmsContacts ? [...links, { reservationId: PMS_GUEST_RECORD, listingId: '', ...pmsContacts }] : links;
}

/** What a source reports now, keeping its last non-empty value of a contact it stopped sending. */
export function reportedContacts(
  now: { email?: string; phone?: string },
  before: { email?: string; phone?: string } | null | undefined,
): { email: string; phone: string } {
  return { email: now.email?.trim() || before?.email || '', phone: now.phone?.trim() || before?.phone || '' };
}

const CONTACT_FIELDS = [
  ['EMAIL', 'email'],
  ['PHONE', 'phone'],
] as const;

/** The form two contacts of one type are compared in ('' for an empty value). */
export function contactKey(type: ContactType, value: string): string {
  const v = value.trim();
  if (!v) return '';
  return type === 'EMAIL' ? normalizeEmail(v) : normalizePhone(v) || v;
}

export interface ContactChange {
  contacts: Contact[];
  /** Contacts removed from the profile (their match keys are released). */
  dropped: Contact[];
  /** True when the contacts differ from the profile's. */
  changed: boolean;
}

/**
 * A source of the profile's contacts (a linked reservation, or the PMS's guest record: see
 * contactSources) now reports the email and phone `reported` (docs/guests.md, "Contact changes
 * from a PMS"). Per type, the value the source reported before (kept with it) is replaced on the profile by the new one, in place and
 * keeping its primary flag, unless another linked reservation still reports the old value (then
 * both stay). Without a known previous value, or when that value is no longer on the profile, the
 * new one is added as a match adds it. An empty value removes nothing (a PMS that stops sending a
 * contact has not said the guest lost it). Contacts from any other source are kept.
 */
export function contactsAfterReservationChange(
  contacts: Contact[],
  links: ReservationLink[],
  reservationId: string,
  reported: { email?: string; phone?: string },
): ContactChange {
  const link = links.find((l) => l.reservationId === reservationId);
  const others = links.filter((l) => l.reservationId !== reservationId);
  let next = contacts.map((c) => ({ ...c }));
  const dropped: Contact[] = [];
  for (const [type, field] of CONTACT_FIELDS) {
    const now = (reported[field] ?? '').trim();
    const nowKey = contactKey(type, now);
    const beforeKey = contactKey(type, link?.[field] ?? '');
    if (!nowKey || nowKey === beforeKey) continue;
    const same = (key: string) => (c: Contact) => c.type === type && contactKey(type, c.value) === key;
    const oldIndex = beforeKey ? next.findIndex(same(beforeKey)) : -1;
    const oldStillReported = others.some((l) => contactKey(type, l[field] ?? '') === beforeKey);
    if (oldIndex < 0 || oldStillReported) {
      next = mergeContacts(next, [{ type, value: now, isPrimary: false }]);
      continue;
    }
    const old = next[oldIndex]!;
    dropped.push(old);
    const already = next.findIndex(same(nowKey));
    if (already >= 0) {
      // The new value is on the profile already: it takes over the old one's primary flag.
      next[already] = { ...next[already]!, isPrimary: next[already]!.isPrimary || old.isPrimary };
      next.splice(oldIndex, 1);
    } else {
      next[oldIndex] = { type, value: now, isPrimary: old.isPrimary };
    }
  }
  const shape = (cs: Contact[]) => JSON.stringify(cs.map((c) => [c.type, c.value, c.isPrimary]));
  const changed = shape(next) !== shape(contacts);
  return { contacts: next, dropped, changed };
}
