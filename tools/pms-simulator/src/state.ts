// The simulated PMSs' own data: accounts with listings, reservations, guests, conversation
// messages, reviews and booking requests/inquiries, each change appended to the account's change
// log (what a PMS's "changes since" API serves), and write idempotency records. What each PMS's
// API accepts is its endpoint table (endpoints.ts). Plain in-memory state, no I/O.
import { PMS_APIS, PMS_SLUGS, pmsOfSlug, type PmsApi, type PmsName, type Section } from './endpoints';

type Provider = PmsName;

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

/** A guest's contact as a PMS keeps it, on its guests, reservations and requests. */
export interface PmsGuestContact {
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  language: string;
}

export interface PmsGuest extends PmsGuestContact {
  id: string;
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
  guest: PmsGuestContact & { id: string };
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

/** One message of a conversation (thread): written by the guest (on a channel) or the host. */
export interface PmsMessage {
  id: string;
  thread_id: string;
  listing_id: string;
  /** The PMS reservation the thread belongs to, '' when none (an inquiry thread). */
  reservation_id: string;
  author: 'guest' | 'host';
  text: string;
  attachments: { url: string; filename: string; mime_type: string }[];
  channel: string;
  created_at: string;
}

/** A review a channel posted, with the host's response once there is one. */
export interface PmsReview {
  id: string;
  listing_id: string;
  reservation_id: string;
  reviewer_name: string;
  stars: number;
  text: string;
  channel: string;
  response: { text: string; responded_at: string } | null;
  submitted_at: string;
  updated_at: string;
}

export type PmsRequestStatus = 'pending' | 'accepted' | 'declined' | 'pre_approved' | 'expired';

/** A booking request (awaiting accept/decline) or an inquiry (may be pre-approved) from a channel. */
export interface PmsRequest {
  id: string;
  kind: 'request' | 'inquiry';
  listing_id: string;
  guest: PmsGuestContact;
  arrival: string;
  departure: string;
  guest_count: number;
  message: string;
  channel: string;
  status: PmsRequestStatus;
  block_instant_booking: boolean;
  updated_at: string;
}

export type PmsEntity = 'listing' | 'reservation' | 'guest' | 'message' | 'review' | 'request' | 'inquiry';

export interface PmsChange {
  /** Position in the account's change log, from 1. */
  seq: number;
  entity: PmsEntity;
  id: string;
  listing_id: string;
  at: string;
  data: PmsListing | PmsReservation | PmsGuest | PmsMessage | PmsReview | PmsRequest;
}

export interface PmsAccount {
  provider: Provider;
  id: string;
  listings: Map<string, PmsListing>;
  reservations: Map<string, PmsReservation>;
  guests: Map<string, PmsGuest>;
  messages: Map<string, PmsMessage>;
  reviews: Map<string, PmsReview>;
  requests: Map<string, PmsRequest>;
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

/** The contact fields sent in `input` over the ones kept (`prev`); absent ones keep theirs, or the defaults. */
function contactOf(input: Body, prev: PmsGuestContact | undefined): PmsGuestContact {
  return {
    first_name: str(input.first_name, prev?.first_name ?? 'Guest'),
    last_name: str(input.last_name, prev?.last_name ?? ''),
    email: str(input.email, prev?.email ?? ''),
    phone: str(input.phone, prev?.phone ?? ''),
    language: str(input.language, prev?.language ?? 'en'),
  };
}

export const PROVIDER_SLUGS = PMS_SLUGS;
export const providerOfSlug = pmsOfSlug;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const REQUEST_STATUSES: readonly PmsRequestStatus[] = ['pending', 'accepted', 'declined', 'pre_approved', 'expired'];

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
      account = {
        provider,
        id,
        listings: new Map(),
        reservations: new Map(),
        guests: new Map(),
        messages: new Map(),
        reviews: new Map(),
        requests: new Map(),
        changes: [],
        idempotent: new Map(),
        nextId: 1,
      };
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

  private record(account: PmsAccount, entity: PmsEntity, data: PmsChange['data'], listingId: string): void {
    account.changes.push({
      seq: account.changes.length + 1,
      entity,
      id: data.id,
      listing_id: listingId,
      at: 'updated_at' in data ? data.updated_at : data.created_at,
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
      ...contactOf(input, prev),
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
      guest: { id: str(guestIn.id, prev?.guest.id ?? ''), ...contactOf(guestIn, prev?.guest) },
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
    if (
      !/^\d{4}-\d{2}-\d{2}$/.test(reservation.arrival) ||
      !/^\d{4}-\d{2}-\d{2}$/.test(reservation.departure) ||
      reservation.arrival >= reservation.departure
    ) {
      throw new PmsRefusal(400, 'bad_dates', 'arrival and departure must be YYYY-MM-DD with arrival before departure.');
    }
    account.reservations.set(id, reservation);
    this.record(account, 'reservation', reservation, listingId);
    return reservation;
  }

  // ---- writes through the PMS API (what the pms-adapter relays) ----

  /** This PMS's endpoint table. */
  private api(account: PmsAccount): PmsApi {
    return PMS_APIS[account.provider];
  }

  /** Refuses (422 unsupported) what this PMS's API does not accept, naming it. */
  private accept(account: PmsAccount, accepted: boolean, what: string): void {
    if (!accepted) throw new PmsRefusal(422, 'unsupported', `${account.provider}'s API does not ${what}.`);
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
    const rules = this.api(account).createReservation;
    if (body.platform === 'owner') this.accept(account, rules.ownerBlocks, 'create owner blocks');
    if (body.unitId) this.accept(account, rules.unitIds, 'book a specific unit');
    if (body.tentativeHold === true) this.accept(account, rules.tentativeHolds, 'place tentative holds');
    if (body.groupId) this.accept(account, rules.groups, 'book groups');
    const listingId = str(body.listingId);
    this.listingOf(account, listingId);
    return this.upsertReservation(account, this.newId(account, 'res'), { ...this.reservationFields(body), listing_id: listingId });
  }

  modifyReservation(account: PmsAccount, id: string, body: Body): PmsReservation {
    const rules = this.api(account).modifyReservation;
    const current = this.reservationOf(account, id);
    const fields = this.reservationFields(body);
    if ((fields.arrival !== undefined && fields.arrival !== current.arrival) || (fields.departure !== undefined && fields.departure !== current.departure)) {
      this.accept(account, rules.dates, 'change the dates of a reservation');
    }
    if (fields.status === 'cancelled' && current.status !== 'cancelled') this.accept(account, this.api(account).cancelReservation, 'cancel reservations');
    if (body.listingId !== undefined && body.listingId !== current.listing_id) this.accept(account, rules.moveListing, 'move a reservation to another listing');
    if (body.checkInTime !== undefined || body.checkOutTime !== undefined) this.accept(account, rules.times, 'change check-in or check-out times');
    if (body.notes !== undefined) this.accept(account, rules.notes, 'store reservation notes');
    if (body.totalPrice !== undefined || obj(body.financials).totalPrice !== undefined) this.accept(account, rules.customPrice, 'accept a custom price');
    return this.upsertReservation(account, id, fields);
  }

  cancelReservation(account: PmsAccount, id: string): PmsReservation {
    this.accept(account, this.api(account).cancelReservation, 'cancel reservations');
    this.reservationOf(account, id);
    return this.upsertReservation(account, id, { status: 'cancelled' });
  }

  quote(account: PmsAccount, body: Body): { total: number; currency: string; nights: number } {
    this.accept(account, this.api(account).quotes, 'quote reservations');
    const listing = this.listingOf(account, str(body.listingId));
    const nights = Math.round((Date.parse(str(body.checkOut)) - Date.parse(str(body.checkIn))) / 86_400_000);
    if (!Number.isFinite(nights) || nights <= 0) throw new PmsRefusal(400, 'bad_dates', 'checkIn must be before checkOut.');
    return { total: nights * listing.base_price + listing.cleaning_fee, currency: listing.currency, nights };
  }

  writeGuest(account: PmsAccount, id: string | null, body: Body): PmsGuest {
    this.accept(account, this.api(account).guests, 'create or update guests');
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
    this.accept(account, (this.api(account).contentSections as readonly string[]).includes(section), `store the content section '${section}'`);
    const listing = this.listingOf(account, listingId);
    listing.content = { ...listing.content, [section]: value };
    listing.updated_at = this.now();
    return listing;
  }

  putCalendar(account: PmsAccount, listingId: string, body: unknown): PmsListing {
    this.accept(account, this.api(account).calendar, 'update availability and prices');
    const listing = this.listingOf(account, listingId);
    listing.calendar = Array.isArray(body) ? body : [body];
    listing.updated_at = this.now();
    return listing;
  }

  // ---- conversations, reviews, requests: arriving from channels (control API) ----

  /** A guest writes a message on a channel; the PMS files it in its thread. Messages never change. */
  receiveMessage(account: PmsAccount, id: string, input: Body): PmsMessage {
    if (account.messages.has(id)) throw new PmsRefusal(409, 'exists', `Message '${id}' exists; messages never change.`);
    const listingId = str(input.listing_id);
    this.listingOf(account, listingId);
    const reservationId = str(input.reservation_id);
    if (reservationId) this.reservationOf(account, reservationId);
    return this.storeMessage(account, {
      id,
      thread_id: str(input.thread_id) || `thread-${reservationId || id}`,
      listing_id: listingId,
      reservation_id: reservationId,
      author: input.author === 'host' ? 'host' : 'guest',
      text: str(input.text),
      attachments: this.attachments(input.attachments),
      channel: str(input.channel, 'CHANNEL_A'),
      created_at: this.now(),
    });
  }

  private attachments(v: unknown): PmsMessage['attachments'] {
    if (v === undefined) return [];
    if (!Array.isArray(v)) throw new PmsRefusal(400, 'bad_attachments', 'attachments must be an array.');
    return v.map((a) => {
      const o = obj(a);
      if (!str(o.url)) throw new PmsRefusal(400, 'bad_attachments', 'every attachment needs a url.');
      return { url: str(o.url), filename: str(o.filename ?? o.name), mime_type: str(o.mime_type ?? o.contentType) };
    });
  }

  private storeMessage(account: PmsAccount, message: PmsMessage): PmsMessage {
    account.messages.set(message.id, message);
    this.record(account, 'message', message, message.listing_id);
    return message;
  }

  /** A channel posts a review, or the guest edits it (the host's response is kept). */
  upsertReview(account: PmsAccount, id: string, input: Body): PmsReview {
    const prev = account.reviews.get(id);
    const listingId = str(input.listing_id, prev?.listing_id ?? '');
    this.listingOf(account, listingId);
    const stars = num(input.stars, prev?.stars ?? 5);
    if (!Number.isInteger(stars) || stars < 1 || stars > 5) throw new PmsRefusal(400, 'bad_stars', 'stars must be 1..5.');
    const now = this.now();
    const review: PmsReview = {
      id,
      listing_id: listingId,
      reservation_id: str(input.reservation_id, prev?.reservation_id ?? ''),
      reviewer_name: str(input.reviewer_name, prev?.reviewer_name ?? 'Guest'),
      stars,
      text: str(input.text, prev?.text ?? ''),
      channel: str(input.channel, prev?.channel ?? 'CHANNEL_A'),
      response: prev?.response ?? null,
      submitted_at: prev?.submitted_at ?? now,
      updated_at: now,
    };
    account.reviews.set(id, review);
    this.record(account, 'review', review, listingId);
    return review;
  }

  /** A booking request or an inquiry arrives from a channel (or changes, e.g. expires). */
  upsertRequest(account: PmsAccount, id: string, input: Body): PmsRequest {
    const prev = account.requests.get(id);
    const kind = str(input.kind, prev?.kind ?? 'request');
    if (kind !== 'request' && kind !== 'inquiry') throw new PmsRefusal(400, 'bad_kind', "kind must be 'request' or 'inquiry'.");
    if (prev && prev.kind !== kind) throw new PmsRefusal(409, 'kind_fixed', `'${id}' is a ${prev.kind}.`);
    const listingId = str(input.listing_id, prev?.listing_id ?? '');
    this.listingOf(account, listingId);
    const status = str(input.status, prev?.status ?? 'pending') as PmsRequestStatus;
    if (!REQUEST_STATUSES.includes(status)) throw new PmsRefusal(400, 'bad_status', `Unknown status '${status}'.`);
    const g = obj(input.guest);
    const request: PmsRequest = {
      id,
      kind,
      listing_id: listingId,
      guest: contactOf(g, prev?.guest),
      arrival: str(input.arrival, prev?.arrival ?? ''),
      departure: str(input.departure, prev?.departure ?? ''),
      guest_count: num(input.guest_count, prev?.guest_count ?? 1),
      message: str(input.message, prev?.message ?? ''),
      channel: str(input.channel, prev?.channel ?? 'CHANNEL_A'),
      status,
      block_instant_booking: prev?.block_instant_booking ?? false,
      updated_at: this.now(),
    };
    if (!DAY.test(request.arrival) || !DAY.test(request.departure) || request.arrival >= request.departure) {
      throw new PmsRefusal(400, 'bad_dates', 'arrival and departure must be YYYY-MM-DD with arrival before departure.');
    }
    return this.storeRequest(account, request);
  }

  private storeRequest(account: PmsAccount, request: PmsRequest): PmsRequest {
    account.requests.set(request.id, request);
    this.record(account, request.kind, request, request.listing_id);
    return request;
  }

  // ---- conversations, reviews, requests: the host's writes through the PMS API ----

  /** The host sends a message (into a thread, or a new one). */
  sendMessage(account: PmsAccount, body: Body): PmsMessage {
    const rules = this.api(account).messages;
    this.accept(account, rules !== false, 'send messages');
    const attachments = this.attachments(body.attachments);
    if (attachments.length > 0) this.accept(account, rules !== false && rules.attachments, 'send message attachments');
    const listingId = str(body.listingId);
    this.listingOf(account, listingId);
    const thread = str(body.conversationExternalId);
    const inThread = thread ? [...account.messages.values()].find((m) => m.thread_id === thread) : undefined;
    if (thread && !inThread) throw new PmsRefusal(404, 'thread_not_found', `Conversation '${thread}' is not in account '${account.id}'.`);
    const id = this.newId(account, 'msg');
    return this.storeMessage(account, {
      id,
      thread_id: thread || `thread-${id}`,
      listing_id: listingId,
      reservation_id: inThread?.reservation_id ?? '',
      author: 'host',
      text: str(body.body),
      attachments,
      channel: inThread?.channel ?? 'CHANNEL_A',
      created_at: this.now(),
    });
  }

  /** The host responds to a review, once. */
  replyToReview(account: PmsAccount, id: string, body: Body): PmsReview {
    this.accept(account, this.api(account).reviewReplies, 'reply to reviews');
    const review = account.reviews.get(id);
    if (!review) throw new PmsRefusal(404, 'review_not_found', `Review '${id}' is not in account '${account.id}'.`);
    if (review.response) throw new PmsRefusal(409, 'already_replied', `Review '${id}' already has a response.`);
    if (!str(body.body).trim()) throw new PmsRefusal(400, 'bad_body', 'body is required.');
    const now = this.now();
    const replied: PmsReview = { ...review, response: { text: str(body.body), responded_at: now }, updated_at: now };
    account.reviews.set(id, replied);
    this.record(account, 'review', replied, replied.listing_id);
    return replied;
  }

  private pendingOf(account: PmsAccount, id: string, kind: PmsRequest['kind']): PmsRequest {
    const found = account.requests.get(id);
    if (!found || found.kind !== kind)
      throw new PmsRefusal(404, `${kind}_not_found`, `${kind === 'request' ? 'Request' : 'Inquiry'} '${id}' is not in account '${account.id}'.`);
    if (found.status !== 'pending') throw new PmsRefusal(409, 'not_pending', `'${id}' is ${found.status}.`);
    return found;
  }

  /** The host accepts or declines a booking request. */
  answerRequest(account: PmsAccount, id: string, body: Body): PmsRequest {
    this.accept(account, this.api(account).requestAnswers, 'accept or decline booking requests');
    const request = this.pendingOf(account, id, 'request');
    if (body.decision !== 'accept' && body.decision !== 'decline') throw new PmsRefusal(400, 'bad_decision', "decision must be 'accept' or 'decline'.");
    return this.storeRequest(account, { ...request, status: body.decision === 'accept' ? 'accepted' : 'declined', updated_at: this.now() });
  }

  /** The host pre-approves an inquiry, optionally blocking instant booking meanwhile. */
  preApprove(account: PmsAccount, id: string, body: Body): PmsRequest {
    const rules = this.api(account).preApprovals;
    this.accept(account, rules !== false, 'pre-approve inquiries');
    if (body.blockInstantBooking === true) this.accept(account, rules !== false && rules.blockInstantBooking, 'block instant booking on a pre-approval');
    const inquiry = this.pendingOf(account, id, 'inquiry');
    return this.storeRequest(account, { ...inquiry, status: 'pre_approved', block_instant_booking: body.blockInstantBooking === true, updated_at: this.now() });
  }
}

export type { Section };
