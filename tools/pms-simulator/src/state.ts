// The simulated PMSs' own data: accounts with listings, reservations and guests, each change
// appended to the account's change log (what a PMS's "changes since" API serves), write
// idempotency records, and what each PMS cannot do. Plain in-memory state, no I/O.
import { isProvider, supports, type PmsWrite, type Provider } from '@vrp/pms-matrix';

/** A listing as the PMS stores it (the PMS's own field names, snake_case). */
export interface PmsListing {
  id: string;
  name: string;
  /** False while unlisted on its channel. */
  listed: boolean;
  channels: { channel: string; listing_id: string }[];
  timezone: string;
  currency: string;
  max_guests: number;
  bedrooms: number;
  bathrooms: number;
  beds: number;
  base_price: number;
  cleaning_fee: number;
  content: Record<string, unknown>;
  calendar: unknown[];
  updated_at: string;
}

export interface PmsGuest {
  id: string;
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  language: string;
  updated_at: string;
}

export type PmsReservationStatus = 'pending' | 'confirmed' | 'cancelled';

export interface PmsReservation {
  id: string;
  listing_id: string;
  status: PmsReservationStatus;
  source: string;
  arrival: string;
  departure: string;
  guest: { id: string; first_name: string; last_name: string; email: string; phone: string; language: string };
  adults: number;
  children: number;
  infants: number;
  pets: number;
  total: number | null;
  currency: string;
  notes: { host?: string; guest?: string };
  custom_fields: Record<string, string>;
  created_at: string;
  updated_at: string;
}

export type PmsEntity = 'listing' | 'reservation' | 'guest';

export interface PmsChange {
  /** Position in the account's change log, from 1. */
  seq: number;
  entity: PmsEntity;
  id: string;
  listing_id: string;
  at: string;
  data: PmsListing | PmsReservation | PmsGuest;
}

export interface PmsAccount {
  provider: Provider;
  id: string;
  listings: Map<string, PmsListing>;
  reservations: Map<string, PmsReservation>;
  guests: Map<string, PmsGuest>;
  changes: PmsChange[];
  /** Idempotency-Key -> the answer given the first time. */
  idempotent: Map<string, { status: number; body: unknown }>;
  nextId: number;
}

/** A PMS's refusal (answered 422) or an unknown/bad request (404/400), as the PMS API would. */
export class PmsRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Body = Record<string, unknown>;

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const num = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const obj = (v: unknown): Body => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Body) : {});

export const PROVIDER_SLUGS: Record<Provider, string> = {
  'PMS-A': 'pms-a',
  'PMS-B': 'pms-b',
  'PMS-C': 'pms-c',
  'PMS-D': 'pms-d',
  'PMS-E': 'pms-e',
  'PMS-F': 'pms-f',
  'PMS-G': 'pms-g',
};

export function providerOfSlug(slug: string): Provider | null {
  const upper = slug.toUpperCase();
  return isProvider(upper) ? upper : null;
}

export class SimulatorState {
  private readonly accounts = new Map<string, PmsAccount>();
  private clock: () => Date;

  constructor(clock: () => Date = () => new Date()) {
    this.clock = clock;
  }

  private now(): string {
    return this.clock().toISOString();
  }

  ensureAccount(provider: Provider, id: string): PmsAccount {
    const key = `${provider}/${id}`;
    let account = this.accounts.get(key);
    if (!account) {
      account = { provider, id, listings: new Map(), reservations: new Map(), guests: new Map(), changes: [], idempotent: new Map(), nextId: 1 };
      this.accounts.set(key, account);
    }
    return account;
  }

  account(provider: Provider, id: string): PmsAccount {
    const account = this.accounts.get(`${provider}/${id}`);
    if (!account) throw new PmsRefusal(404, 'account_not_found', `${provider} has no account '${id}'.`);
    return account;
  }

  /** The change log after `since`, at most `limit` entries. */
  changesSince(account: PmsAccount, since: number, limit: number): { changes: PmsChange[]; cursor: number; hasMore: boolean } {
    const changes = account.changes.filter((c) => c.seq > since).slice(0, limit);
    const cursor = changes.length > 0 ? changes[changes.length - 1]!.seq : since;
    return { changes, cursor, hasMore: account.changes.some((c) => c.seq > cursor) };
  }

  private record(account: PmsAccount, entity: PmsEntity, data: PmsListing | PmsReservation | PmsGuest, listingId: string): void {
    account.changes.push({
      seq: account.changes.length + 1,
      entity,
      id: data.id,
      listing_id: listingId,
      at: data.updated_at,
      // A snapshot: later changes to the entity do not rewrite history.
      data: structuredClone(data),
    });
  }

  private newId(account: PmsAccount, kind: string): string {
    return `${PROVIDER_SLUGS[account.provider]}-${account.id}-${kind}-${account.nextId++}`;
  }

  // ---- changes made "in the PMS" (control API) ----

  upsertListing(account: PmsAccount, id: string, input: Body): PmsListing {
    const prev = account.listings.get(id);
    const channels = Array.isArray(input.channels)
      ? input.channels.map((c) => ({ channel: str(obj(c).channel, 'CHANNEL_A'), listing_id: str(obj(c).listing_id) }))
      : (prev?.channels ?? []);
    const listing: PmsListing = {
      id,
      name: str(input.name, prev?.name ?? `Listing ${id}`),
      listed: typeof input.listed === 'boolean' ? input.listed : (prev?.listed ?? true),
      channels,
      timezone: str(input.timezone, prev?.timezone ?? 'UTC'),
      currency: str(input.currency, prev?.currency ?? 'EUR'),
      max_guests: num(input.max_guests, prev?.max_guests ?? 2),
      bedrooms: num(input.bedrooms, prev?.bedrooms ?? 1),
      bathrooms: num(input.bathrooms, prev?.bathrooms ?? 1),
      beds: num(input.beds, prev?.beds ?? 1),
      base_price: num(input.base_price, prev?.base_price ?? 100),
      cleaning_fee: num(input.cleaning_fee, prev?.cleaning_fee ?? 0),
      content: prev?.content ?? {},
      calendar: prev?.calendar ?? [],
      updated_at: this.now(),
    };
    account.listings.set(id, listing);
    this.record(account, 'listing', listing, id);
    return listing;
  }

  upsertGuest(account: PmsAccount, id: string, input: Body): PmsGuest {
    const prev = account.guests.get(id);
    const guest: PmsGuest = {
      id,
      first_name: str(input.first_name, prev?.first_name ?? 'Guest'),
      last_name: str(input.last_name, prev?.last_name ?? ''),
      email: str(input.email, prev?.email ?? ''),
      phone: str(input.phone, prev?.phone ?? ''),
      language: str(input.language, prev?.language ?? 'en'),
      updated_at: this.now(),
    };
    account.guests.set(id, guest);
    this.record(account, 'guest', guest, '');
    return guest;
  }

  upsertReservation(account: PmsAccount, id: string, input: Body): PmsReservation {
    const prev = account.reservations.get(id);
    const listingId = str(input.listing_id, prev?.listing_id ?? '');
    if (!account.listings.has(listingId)) throw new PmsRefusal(400, 'unknown_listing', `Listing '${listingId}' is not in account '${account.id}'.`);
    const guestIn = obj(input.guest);
    const now = this.now();
    const status = str(input.status, prev?.status ?? 'confirmed');
    if (!['pending', 'confirmed', 'cancelled'].includes(status)) throw new PmsRefusal(400, 'bad_status', `Unknown status '${status}'.`);
    const reservation: PmsReservation = {
      id,
      listing_id: listingId,
      status: status as PmsReservationStatus,
      source: str(input.source, prev?.source ?? 'DIRECT'),
      arrival: str(input.arrival, prev?.arrival ?? ''),
      departure: str(input.departure, prev?.departure ?? ''),
      guest: {
        id: str(guestIn.id, prev?.guest.id ?? ''),
        first_name: str(guestIn.first_name, prev?.guest.first_name ?? 'Guest'),
        last_name: str(guestIn.last_name, prev?.guest.last_name ?? ''),
        email: str(guestIn.email, prev?.guest.email ?? ''),
        phone: str(guestIn.phone, prev?.guest.phone ?? ''),
        language: str(guestIn.language, prev?.guest.language ?? 'en'),
      },
      adults: num(input.adults, prev?.adults ?? 1),
      children: num(input.children, prev?.children ?? 0),
      infants: num(input.infants, prev?.infants ?? 0),
      pets: num(input.pets, prev?.pets ?? 0),
      total: input.total === null ? null : num(input.total, prev?.total ?? NaN),
      currency: str(input.currency, prev?.currency ?? 'EUR'),
      notes: input.notes !== undefined ? (obj(input.notes) as PmsReservation['notes']) : (prev?.notes ?? {}),
      custom_fields: input.custom_fields !== undefined ? (obj(input.custom_fields) as Record<string, string>) : (prev?.custom_fields ?? {}),
      created_at: prev?.created_at ?? now,
      updated_at: now,
    };
    if (Number.isNaN(reservation.total)) reservation.total = null;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(reservation.arrival) || !/^\d{4}-\d{2}-\d{2}$/.test(reservation.departure) || reservation.arrival >= reservation.departure) {
      throw new PmsRefusal(400, 'bad_dates', 'arrival and departure must be YYYY-MM-DD with arrival before departure.');
    }
    account.reservations.set(id, reservation);
    this.record(account, 'reservation', reservation, listingId);
    return reservation;
  }

  // ---- writes through the PMS API (what the pms-adapter relays) ----

  /** Refuses what this PMS's API cannot do, as the PMS would (422). */
  private require(account: PmsAccount, write: PmsWrite): void {
    if (!supports(account.provider, write)) throw new PmsRefusal(422, 'unsupported', `${account.provider} does not support ${write}.`);
  }

  private listingOf(account: PmsAccount, id: string): PmsListing {
    const listing = account.listings.get(id);
    if (!listing) throw new PmsRefusal(404, 'listing_not_found', `Listing '${id}' is not in account '${account.id}'.`);
    return listing;
  }

  private reservationOf(account: PmsAccount, id: string): PmsReservation {
    const found = account.reservations.get(id);
    if (!found) throw new PmsRefusal(404, 'reservation_not_found', `Reservation '${id}' is not in account '${account.id}'.`);
    return found;
  }

  /** A reservation write body (the API's camelCase names) in the PMS's own names. */
  private reservationFields(body: Body): Body {
    const guest = obj(body.primaryGuest ?? body.guest);
    const occupancy = obj(body.occupancy);
    const financials = obj(body.financials);
    const out: Body = {};
    if (body.checkIn !== undefined) out.arrival = body.checkIn;
    if (body.checkOut !== undefined) out.departure = body.checkOut;
    if (typeof body.status === 'string') out.status = body.status.toLowerCase();
    if (body.source !== undefined) out.source = body.source;
    if (Object.keys(guest).length > 0) {
      out.guest = { first_name: guest.firstName, last_name: guest.lastName, email: guest.email, phone: guest.phone, language: guest.language };
    }
    for (const k of ['adults', 'children', 'infants', 'pets'] as const) if (occupancy[k] !== undefined) out[k] = occupancy[k];
    const total = body.totalPrice ?? financials.totalPrice;
    if (total !== undefined) out.total = total;
    const currency = body.currency ?? financials.currency;
    if (currency !== undefined) out.currency = currency;
    if (body.notes !== undefined) out.notes = body.notes;
    if (body.customFields !== undefined) out.custom_fields = body.customFields;
    return out;
  }

  createReservation(account: PmsAccount, body: Body): PmsReservation {
    this.require(account, 'reservation.create');
    if (body.platform === 'owner') this.require(account, 'reservation.owner_block');
    if (body.unitId) this.require(account, 'reservation.unit_id');
    if (body.tentativeHold === true) this.require(account, 'reservation.tentative_hold');
    if (body.groupId) this.require(account, 'reservation.group_booking');
    const listingId = str(body.listingId);
    this.listingOf(account, listingId);
    return this.upsertReservation(account, this.newId(account, 'res'), { ...this.reservationFields(body), listing_id: listingId });
  }

  modifyReservation(account: PmsAccount, id: string, body: Body): PmsReservation {
    this.require(account, 'reservation.modify');
    const current = this.reservationOf(account, id);
    const fields = this.reservationFields(body);
    if ((fields.arrival !== undefined && fields.arrival !== current.arrival) || (fields.departure !== undefined && fields.departure !== current.departure)) {
      this.require(account, 'reservation.change_dates');
    }
    if (fields.status === 'cancelled' && current.status !== 'cancelled') this.require(account, 'reservation.cancel');
    if (body.listingId !== undefined && body.listingId !== current.listing_id) this.require(account, 'reservation.move_listing');
    if (body.checkInTime !== undefined || body.checkOutTime !== undefined) this.require(account, 'reservation.change_times');
    return this.upsertReservation(account, id, fields);
  }

  cancelReservation(account: PmsAccount, id: string): PmsReservation {
    this.require(account, 'reservation.cancel');
    this.reservationOf(account, id);
    return this.upsertReservation(account, id, { status: 'cancelled' });
  }

  quote(account: PmsAccount, body: Body): { total: number; currency: string; nights: number } {
    this.require(account, 'reservation.quote');
    const listing = this.listingOf(account, str(body.listingId));
    const nights = Math.round((Date.parse(str(body.checkOut)) - Date.parse(str(body.checkIn))) / 86_400_000);
    if (!Number.isFinite(nights) || nights <= 0) throw new PmsRefusal(400, 'bad_dates', 'checkIn must be before checkOut.');
    return { total: nights * listing.base_price + listing.cleaning_fee, currency: listing.currency, nights };
  }

  writeGuest(account: PmsAccount, id: string | null, body: Body): PmsGuest {
    this.require(account, 'guest.write');
    if (id !== null && !account.guests.has(id)) throw new PmsRefusal(404, 'guest_not_found', `Guest '${id}' is not in account '${account.id}'.`);
    return this.upsertGuest(account, id ?? this.newId(account, 'gst'), {
      first_name: body.firstName,
      last_name: body.lastName,
      email: body.email,
      phone: body.phone,
      language: body.language,
    });
  }

  putContent(account: PmsAccount, listingId: string, section: string, value: unknown): PmsListing {
    this.require(account, `content.${section}` as PmsWrite);
    const listing = this.listingOf(account, listingId);
    listing.content = { ...listing.content, [section]: value };
    listing.updated_at = this.now();
    return listing;
  }

  putCalendar(account: PmsAccount, listingId: string, body: unknown): PmsListing {
    this.require(account, 'calendar.write');
    const listing = this.listingOf(account, listingId);
    listing.calendar = Array.isArray(body) ? body : [body];
    listing.updated_at = this.now();
    return listing;
  }

  /** Messaging, reviews, requests and inquiries: accepted or refused, acknowledged with an id. */
  guestSideWrite(account: PmsAccount, write: PmsWrite, body: Body, entityId: string): { id: string } {
    this.require(account, write);
    if (write === 'message.send' && Array.isArray(body.attachments) && body.attachments.length > 0) this.require(account, 'message.attachments');
    if (write === 'inquiry.pre_approve' && body.blockInstantBooking === true) this.require(account, 'inquiry.block_instant_booking');
    return { id: entityId || this.newId(account, 'msg') };
  }
}
