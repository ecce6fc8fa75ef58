// A PMS's change feed entries, normalized into the entity messages of pms.sync.v1
// (proto/vrp/pms/v1/sync.proto), so that the consuming services never see a PMS's own format.
// No I/O here.
import { DATE_PATTERN } from '@vrp/api-model';
import type { SyncEntity, SyncPayloads } from '@vrp/contracts';

/** One entry of a PMS's change feed, as the PMS API returns it. */
export interface PmsFeedChange {
  seq: number;
  entity: string;
  id: string;
  listing_id: string;
  at: string;
  data: Record<string, unknown>;
}

interface Normalized<E extends SyncEntity> {
  /** Position in the feed: the change id is derived from it, so a re-read yields the same id. */
  seq: number;
  entity: E;
  externalId: string;
  /** '' for guests, which belong to no listing. */
  listingExternalId: string;
  occurredAt: Date;
  payload: SyncPayloads[E];
}

/** A normalized change: `entity` names the payload's type (the oneof member on the topic). */
export type NormalizedChange = { [E in SyncEntity]: Normalized<E> }[SyncEntity];

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const optText = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const count = (v: unknown, fallback = 0): number => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : fallback);
const optNumber = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const optCount = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined);

const STATUSES: Record<string, string> = { pending: 'PENDING', confirmed: 'CONFIRMED', cancelled: 'CANCELLED', canceled: 'CANCELLED' };
/** The PMS's request states, in the API's words. */
const REQUEST_STATUSES: Record<string, string> = {
  pending: 'pending',
  open: 'pending',
  accepted: 'accepted',
  declined: 'declined',
  pre_approved: 'pre_approved',
  preapproved: 'pre_approved',
  expired: 'expired',
};

/** Why a feed entry cannot be published; it is skipped (and logged) so the feed keeps moving. */
export class MalformedChange extends Error {}

function time(v: unknown, what: string): Date {
  const d = new Date(text(v));
  if (!text(v) || Number.isNaN(d.getTime())) throw new MalformedChange(`${what} is not a time`);
  return d;
}

function person(g: Obj): SyncPayloads['reservation']['guest'] & object {
  return {
    externalId: optText(g.id),
    firstName: text(g.first_name) || 'Guest',
    lastName: optText(g.last_name),
    email: optText(g.email),
    phone: optText(g.phone),
    language: optText(g.language),
  };
}

function listingPayload(d: Obj): SyncPayloads['listing'] {
  const externalId = text(d.id);
  const name = text(d.name);
  if (!externalId || !name) throw new MalformedChange('a listing needs id and name');
  const channels = Array.isArray(d.channels)
    ? d.channels
        .map(obj)
        .filter((c) => text(c.listing_id))
        .map((c) => ({ channel: text(c.channel) || 'CHANNEL_A', externalId: text(c.listing_id) }))
    : [];
  return {
    externalId,
    name,
    unlisted: d.listed === false,
    channels,
    timezone: optText(d.timezone),
    currency: optText(d.currency),
    maxGuests: optCount(d.max_guests),
    bedrooms: optCount(d.bedrooms),
    bathrooms: optCount(d.bathrooms),
    beds: optCount(d.beds),
    defaultNightlyPrice: optNumber(d.base_price),
    cleaningFee: optNumber(d.cleaning_fee),
  };
}

function reservationPayload(d: Obj, at: Date): SyncPayloads['reservation'] {
  const externalId = text(d.id);
  const listingExternalId = text(d.listing_id);
  const status = STATUSES[text(d.status).toLowerCase()];
  if (!externalId || !listingExternalId) throw new MalformedChange('a reservation needs id and listing_id');
  if (!status) throw new MalformedChange(`unknown reservation status '${text(d.status)}'`);
  return {
    externalId,
    listingExternalId,
    status,
    source: text(d.source) || 'DIRECT',
    checkIn: text(d.arrival),
    checkOut: text(d.departure),
    guest: person(obj(d.guest)),
    occupancy: { adults: count(d.adults, 1), children: count(d.children), infants: count(d.infants), pets: count(d.pets) },
    totalPrice: optNumber(d.total),
    currency: optText(d.currency),
    updatedAt: d.updated_at ? time(d.updated_at, 'updated_at') : at,
  };
}

function guestPayload(d: Obj, at: Date): SyncPayloads['guest'] {
  const externalId = text(d.id);
  if (!externalId) throw new MalformedChange('a guest needs an id');
  const { externalId: _id, ...rest } = person(d);
  return { externalId, ...rest, updatedAt: d.updated_at ? time(d.updated_at, 'updated_at') : at };
}

/** A message of a PMS thread: `guest` (inbound) or `host` (outbound) wrote it. */
function messagePayload(d: Obj): SyncPayloads['message'] {
  const externalId = text(d.id);
  const thread = text(d.thread_id);
  if (!externalId || !thread) throw new MalformedChange('a message needs id and thread_id');
  const author = text(d.author);
  if (author !== 'guest' && author !== 'host') throw new MalformedChange(`unknown message author '${author}'`);
  const attachments = Array.isArray(d.attachments)
    ? d.attachments.map(obj).map((a) => {
        if (!text(a.url)) throw new MalformedChange('an attachment needs a url');
        return { url: text(a.url), name: optText(a.filename), contentType: optText(a.mime_type) };
      })
    : [];
  return {
    externalId,
    conversationExternalId: thread,
    reservationExternalId: optText(d.reservation_id),
    direction: author === 'guest' ? 'inbound' : 'outbound',
    body: text(d.text),
    attachments,
    channel: optText(d.channel),
    sentAt: time(d.created_at, 'created_at'),
  };
}

function reviewPayload(d: Obj, at: Date): SyncPayloads['review'] {
  const externalId = text(d.id);
  if (!externalId) throw new MalformedChange('a review needs an id');
  const stars = d.stars;
  if (typeof stars !== 'number' || !Number.isInteger(stars) || stars < 1 || stars > 5) throw new MalformedChange('a review needs stars 1..5');
  const response = d.response === null || d.response === undefined ? null : obj(d.response);
  return {
    externalId,
    reservationExternalId: optText(d.reservation_id),
    guestName: optText(d.reviewer_name),
    rating: stars,
    body: text(d.text),
    channel: optText(d.channel),
    reply: response ? { body: text(response.text), repliedAt: time(response.responded_at, 'response.responded_at') } : undefined,
    submittedAt: time(d.submitted_at, 'submitted_at'),
    updatedAt: d.updated_at ? time(d.updated_at, 'updated_at') : at,
  };
}

function requestPayload(d: Obj, at: Date): SyncPayloads['request'] {
  const externalId = text(d.id);
  if (!externalId) throw new MalformedChange('a request needs an id');
  const status = REQUEST_STATUSES[text(d.status).toLowerCase() || 'pending'];
  if (!status) throw new MalformedChange(`unknown request status '${text(d.status)}'`);
  const checkIn = text(d.arrival);
  const checkOut = text(d.departure);
  if (!DATE_PATTERN.test(checkIn) || !DATE_PATTERN.test(checkOut)) throw new MalformedChange('a request needs arrival and departure dates');
  return {
    externalId,
    guest: person(obj(d.guest)),
    checkIn,
    checkOut,
    guests: count(d.guest_count, 1),
    message: optText(d.message),
    channel: optText(d.channel),
    status,
    updatedAt: d.updated_at ? time(d.updated_at, 'updated_at') : at,
  };
}

/** The listing a guest-side entry belongs to: every one of them needs it. */
function listingOfEntry(change: PmsFeedChange, d: Obj): string {
  const id = text(d.listing_id) || change.listing_id;
  if (!id) throw new MalformedChange(`a ${change.entity} needs listing_id`);
  return id;
}

/** The normalized change, or MalformedChange when the entry cannot be understood. */
export function normalizeChange(change: PmsFeedChange): NormalizedChange {
  const data = obj(change.data);
  const occurredAt = new Date(change.at);
  if (Number.isNaN(occurredAt.getTime())) throw new MalformedChange(`change ${change.seq} has no valid time`);
  const { seq } = change;
  switch (change.entity) {
    case 'listing': {
      const payload = listingPayload(data);
      return { seq, entity: 'listing', externalId: payload.externalId, listingExternalId: payload.externalId, occurredAt, payload };
    }
    case 'reservation': {
      const payload = reservationPayload(data, occurredAt);
      return { seq, entity: 'reservation', externalId: payload.externalId, listingExternalId: payload.listingExternalId, occurredAt, payload };
    }
    case 'guest': {
      const payload = guestPayload(data, occurredAt);
      return { seq, entity: 'guest', externalId: payload.externalId, listingExternalId: '', occurredAt, payload };
    }
    case 'message': {
      const payload = messagePayload(data);
      return { seq, entity: 'message', externalId: payload.externalId, listingExternalId: listingOfEntry(change, data), occurredAt, payload };
    }
    case 'review': {
      const payload = reviewPayload(data, occurredAt);
      return { seq, entity: 'review', externalId: payload.externalId, listingExternalId: listingOfEntry(change, data), occurredAt, payload };
    }
    case 'request':
    case 'inquiry': {
      const payload = requestPayload(data, occurredAt);
      return { seq, entity: change.entity, externalId: payload.externalId, listingExternalId: listingOfEntry(change, data), occurredAt, payload };
    }
    default:
      throw new MalformedChange(`unknown entity '${change.entity}'`);
  }
}

/**
 * The message key on pms.sync.v1: the listing's external id, so that one listing's changes
 * (the listing itself, then its reservations, messages, reviews, requests) stay in order; a
 * guest has no listing and is keyed by its own id.
 */
export function syncKey(change: Pick<NormalizedChange, 'entity' | 'externalId' | 'listingExternalId'>): string {
  return change.listingExternalId || `guest:${change.externalId}`;
}
