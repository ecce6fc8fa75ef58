// A PMS's change feed entries, normalized into the payloads of pms.sync.v1 (packages/contracts
// pms-sync.ts), so that the consuming services never see a PMS's own format. No I/O here.
import type { GuestSyncPayload, ListingSyncPayload, ReservationSyncPayload, SyncEntity } from '@vrp/contracts';

/** One entry of a PMS's change feed, as the PMS API returns it. */
export interface PmsFeedChange {
  seq: number;
  entity: string;
  id: string;
  listing_id: string;
  at: string;
  data: Record<string, unknown>;
}

export interface NormalizedChange {
  /** Position in the feed: the change id is derived from it, so a re-read yields the same id. */
  seq: number;
  entity: SyncEntity;
  externalId: string;
  /** '' for guests, which belong to no listing. */
  listingExternalId: string;
  occurredAt: Date;
  payload: ListingSyncPayload | ReservationSyncPayload | GuestSyncPayload;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const optText = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const count = (v: unknown, fallback = 0): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fallback);
const optNumber = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

const STATUSES: Record<string, ReservationSyncPayload['status']> = { pending: 'PENDING', confirmed: 'CONFIRMED', cancelled: 'CANCELLED', canceled: 'CANCELLED' };

/** Why a feed entry cannot be published; it is skipped (and logged) so the feed keeps moving. */
export class MalformedChange extends Error {}

function listingPayload(d: Obj): ListingSyncPayload {
  const externalId = text(d.id);
  const name = text(d.name);
  if (!externalId || !name) throw new MalformedChange('a listing needs id and name');
  const channels = Array.isArray(d.channels)
    ? d.channels.map(obj).filter((c) => text(c.listing_id)).map((c) => ({ channel: text(c.channel) || 'CHANNEL_A', externalId: text(c.listing_id) }))
    : [];
  return {
    externalId,
    name,
    unlisted: d.listed === false,
    channels,
    timezone: optText(d.timezone),
    currency: optText(d.currency),
    maxGuests: optNumber(d.max_guests),
    bedrooms: optNumber(d.bedrooms),
    bathrooms: optNumber(d.bathrooms),
    beds: optNumber(d.beds),
    defaultNightlyPrice: optNumber(d.base_price),
    cleaningFee: optNumber(d.cleaning_fee),
  };
}

function reservationPayload(d: Obj, at: string): ReservationSyncPayload {
  const externalId = text(d.id);
  const listingExternalId = text(d.listing_id);
  const status = STATUSES[text(d.status).toLowerCase()];
  if (!externalId || !listingExternalId) throw new MalformedChange('a reservation needs id and listing_id');
  if (!status) throw new MalformedChange(`unknown reservation status '${text(d.status)}'`);
  const g = obj(d.guest);
  return {
    externalId,
    listingExternalId,
    status,
    source: text(d.source) || 'DIRECT',
    checkIn: text(d.arrival),
    checkOut: text(d.departure),
    guest: {
      externalId: optText(g.id),
      firstName: text(g.first_name) || 'Guest',
      lastName: optText(g.last_name),
      email: optText(g.email),
      phone: optText(g.phone),
      language: optText(g.language),
    },
    occupancy: { adults: count(d.adults, 1), children: count(d.children), infants: count(d.infants), pets: count(d.pets) },
    totalPrice: optNumber(d.total),
    currency: optText(d.currency),
    updatedAt: text(d.updated_at) || at,
  };
}

function guestPayload(d: Obj, at: string): GuestSyncPayload {
  const externalId = text(d.id);
  if (!externalId) throw new MalformedChange('a guest needs an id');
  return {
    externalId,
    firstName: text(d.first_name) || 'Guest',
    lastName: optText(d.last_name),
    email: optText(d.email),
    phone: optText(d.phone),
    language: optText(d.language),
    updatedAt: text(d.updated_at) || at,
  };
}

/** The normalized change, or MalformedChange when the entry cannot be understood. */
export function normalizeChange(change: PmsFeedChange): NormalizedChange {
  const data = obj(change.data);
  const occurredAt = new Date(change.at);
  if (Number.isNaN(occurredAt.getTime())) throw new MalformedChange(`change ${change.seq} has no valid time`);
  switch (change.entity) {
    case 'listing': {
      const payload = listingPayload(data);
      return { seq: change.seq, entity: 'listing', externalId: payload.externalId, listingExternalId: payload.externalId, occurredAt, payload };
    }
    case 'reservation': {
      const payload = reservationPayload(data, change.at);
      return { seq: change.seq, entity: 'reservation', externalId: payload.externalId, listingExternalId: payload.listingExternalId, occurredAt, payload };
    }
    case 'guest': {
      const payload = guestPayload(data, change.at);
      return { seq: change.seq, entity: 'guest', externalId: payload.externalId, listingExternalId: '', occurredAt, payload };
    }
    default:
      throw new MalformedChange(`unknown entity '${change.entity}'`);
  }
}

/**
 * The message key on pms.sync.v1: the listing's external id, so that one listing's changes
 * (the listing itself, then its reservations) stay in order; a guest has no listing and is
 * keyed by its own id.
 */
export function syncKey(change: Pick<NormalizedChange, 'entity' | 'externalId' | 'listingExternalId'>): string {
  return change.listingExternalId || `guest:${change.externalId}`;
}
