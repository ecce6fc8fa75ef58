// The API's vocabulary: every enum, pattern and limit a request or a record is checked against,
// defined once. The zod schemas (./schemas) validate requests with these, and the services'
// domain rules and mongoose schemas import the same constants, so the gateway's 400 and the
// service's own check can never disagree. Spec rows map here as follows: reservation statuses
// and sources (2.1, 3.1, 4.1), guests (2.2, 4.2), listings (2.3, 4.3), page limits (8).
// A test (packages/api-model/test/vocabulary.test.ts) fails when one of these literal sets or
// patterns is written again anywhere else in the hand-written sources.

/** Whether `value` is one of `values` (narrows to the literal union). */
export function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

// ---- modes ----

/** The two data sets of a workspace: test keys see test data, live keys live data (defined with the sandbox rules of @vrp/platform). */
export { KEY_MODES as MODES, type KeyMode as Mode } from '@vrp/platform/sandbox';

// ---- common patterns ----

/** A calendar date as the API writes it (the real-date check comes on top). */
export const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
/** A local time of day, 24 h. */
export const TIME_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;
/** An ISO 4217 currency code. */
export const CURRENCY_PATTERN = /^[A-Z]{3}$/;
/** Longest id accepted in a path, query or body. */
export const MAX_ID_LENGTH = 200;

// ---- reservations (docs/reservations.md) ----

export const RESERVATION_STATUSES = ['PENDING', 'CONFIRMED', 'CANCELLED', 'POST_STAY'] as const;
export type ReservationStatus = (typeof RESERVATION_STATUSES)[number];
/** Statuses a caller may set through PATCH; POST_STAY is derived from the dates. */
export const WRITABLE_RESERVATION_STATUSES = ['PENDING', 'CONFIRMED', 'CANCELLED'] as const;
export type WritableReservationStatus = (typeof WRITABLE_RESERVATION_STATUSES)[number];
/** MANUAL is accepted on create; reservations made so can be filtered by it. */
export const RESERVATION_SOURCES = ['CHANNEL_A', 'CHANNEL_B', 'CHANNEL_C', 'DIRECT', 'MANUAL'] as const;
export type ReservationSource = (typeof RESERVATION_SOURCES)[number];
/** `platform` values of a create: `owner` makes an owner block. */
export const RESERVATION_PLATFORMS = ['owner'] as const;
/** Longest stay a reservation may span (the listing calendar reads at most 366 days). */
export const MAX_NIGHTS = 365;
export const MAX_NOTE_LENGTH = 5000;
/** Custom fields: at most this many keys, on create, in a PATCH and on the record after a PATCH. */
export const MAX_CUSTOM_FIELDS = 50;
export const MAX_CUSTOM_FIELD_KEY_LENGTH = 100;
export const MAX_CUSTOM_FIELD_VALUE_LENGTH = 2000;
/** A custom-field key: no "." and no leading "$" (MongoDB would read them as paths and operators). */
export const CUSTOM_FIELD_KEY_PATTERN = /^[^.$][^.]*$/;
export const MAX_PRICE = 100_000_000;

// ---- guests, conversations, reviews, requests (docs/guests.md) ----

export const CONTACT_TYPES = ['EMAIL', 'PHONE'] as const;
export const DEFAULT_GUEST_LANGUAGE = 'en';
/** A guest's language preference: a BCP 47 tag such as `en` or `pt-BR`. */
export const GUEST_LANGUAGE_PATTERN = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;
export const MAX_GUEST_NAME_LENGTH = 100;
/** A reservation's primary guest as written on create. */
export const MAX_PRIMARY_GUEST_NAME_LENGTH = 200;
export const MAX_PRIMARY_GUEST_PHONE_LENGTH = 50;
export const MESSAGE_DIRECTIONS = ['inbound', 'outbound'] as const;
export type MessageDirection = (typeof MESSAGE_DIRECTIONS)[number];
export const MAX_MESSAGE_LENGTH = 10_000;
export const MAX_ATTACHMENTS = 10;
export const MAX_ATTACHMENT_URL_LENGTH = 2000;
/** An attachment's URL: http or https. */
export const ATTACHMENT_URL_PATTERN = /^https?:\/\/\S+$/;
export const MAX_REVIEW_REPLY_LENGTH = 5000;
/** The host's note when answering a request or pre-approving an inquiry. */
export const MAX_REQUEST_NOTE_LENGTH = 5000;
export const REQUEST_KINDS = ['request', 'inquiry'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];
export const REQUEST_STATUSES = ['pending', 'accepted', 'declined', 'pre_approved', 'expired'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

// ---- listings and their data (docs/listings.md) ----

export const LISTING_STATUSES = ['active', 'inactive'] as const;
export type ListingStatus = (typeof LISTING_STATUSES)[number];
/** The `status` filter of GET /v1/listings. */
export const LISTING_STATUS_FILTERS = ['active', 'inactive', 'all'] as const;
export type ListingStatusFilter = (typeof LISTING_STATUS_FILTERS)[number];
export const MAX_TOGGLE_LISTINGS = 200;
/** A listing's name (admin create). */
export const MAX_LISTING_NAME_LENGTH = 200;
/** A listing's default nightly price and cleaning fee (admin create). */
export const MAX_LISTING_NIGHTLY_PRICE = 1_000_000;
/** Longest calendar range read or written at once, in days. */
export const MAX_CALENDAR_RANGE_DAYS = 366;
export const MAX_AVAILABILITY_UPDATES = 100;
export const MAX_MIN_NIGHTS = 365;
export const MAX_LISTING_DESCRIPTION_LENGTH = 10_000;
export const MAX_HOUSE_RULES_LENGTH = 5000;
export const MAX_AMENITIES = 100;
export const MAX_AMENITY_LENGTH = 100;
export const HOUSE_RULE_SWITCHES = ['petsAllowed', 'smokingAllowed', 'partiesAllowed', 'childrenAllowed', 'eventsAllowed'] as const;
/**
 * The language of a content translation: a language, optionally with a region ('pt-BR',
 * 'es-419') or a script ('zh-Hant'). Also keeps map keys free of '.' and '$', which MongoDB
 * would read as paths and operators.
 */
export const CONTENT_LANGUAGE_PATTERN = /^[a-z]{2,3}(?:-(?:[A-Z]{2}|\d{3}|[A-Z][a-z]{3}))?$/;
export const MAX_PHOTOS = 100;
export const MAX_PHOTO_URL_LENGTH = 2048;
export const MAX_PHOTO_CAPTION_LENGTH = 500;

// ---- PMS connections (admin API) ----

export const CONNECTION_STATUSES = ['connected', 'disconnected'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

// ---- webhooks ----

export const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'failed', 'dropped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export const DELIVERY_DROP_REASONS = ['listing_inactive', 'subscription_disabled', 'subscription_deleted'] as const;
export type DeliveryDropReason = (typeof DELIVERY_DROP_REASONS)[number];
export const MAX_WEBHOOK_URL_LENGTH = 2048;
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 500;
/** Entries of a subscription's `eventTypes`, and the length of one. */
export const MAX_SUBSCRIPTION_EVENT_TYPES = 50;
export const MAX_EVENT_TYPE_LENGTH = 100;
export const DEFAULT_ROTATION_GRACE_SECONDS = 24 * 3600;
export const MAX_ROTATION_GRACE_SECONDS = 7 * 24 * 3600;
/** Why a night is unavailable in `409 dates_unavailable`: booked by a reservation, or closed on the listing's calendar. */
export const DATE_CONFLICT_REASONS = ['booked', 'closed'] as const;

// ---- defined in @vrp/platform (below this package), beside the code that applies them ----

/** Dead letters (admin API): why one was set aside, and the list's status filter. */
export { DEAD_LETTER_REASONS, DEAD_LETTER_STATUS_FILTERS } from '@vrp/platform/consumer';
/** Pages (docs/api.md, "Limits and versioning"). */

export { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, MAX_PAGE_OFFSET } from '@vrp/platform/paging';
