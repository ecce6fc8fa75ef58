// The PMS capability matrix: one declarative table of which writes each PMS's API can perform
// (docs/api.md, "Writes that a PMS cannot perform"). It is the only source for refusals (`422 pms_write_unsupported`), for
// `capabilities` on GET /v1/listings/{id}, and for GET /v1/connect/{provider}. A refusal is a
// property of the PMS, never of a plan or a connection.
import { pmsWriteUnsupported } from '@vrp/platform/errors';

export const PROVIDERS = ['PMS-A', 'PMS-B', 'PMS-C', 'PMS-D', 'PMS-E', 'PMS-F', 'PMS-G'] as const;
export type Provider = (typeof PROVIDERS)[number];

export const CONTENT_SECTIONS = ['description', 'amenities', 'house_rules', 'house_rule_switches', 'rooms', 'translations'] as const;
export type ContentSection = (typeof CONTENT_SECTIONS)[number];

/** Every write that may be relayed to a PMS, with the words used in refusals. */
export const WRITES = {
  'reservation.create': 'create reservations',
  'reservation.modify': 'modify reservations',
  'reservation.cancel': 'cancel reservations',
  'reservation.quote': 'quote reservations',
  'reservation.custom_price': 'accept a custom price on reservations',
  'reservation.notes': 'store reservation notes',
  'reservation.change_dates': 'change the dates of a reservation',
  'reservation.change_times': 'change the check-in or check-out time of a reservation',
  'reservation.move_listing': 'move a reservation to another listing',
  'reservation.owner_block': 'create owner blocks (platform: owner)',
  'reservation.unit_id': 'book a specific unit (unitId)',
  'reservation.tentative_hold': 'place tentative holds',
  'reservation.group_booking': 'create group reservations',
  'review.reply': 'reply to reviews',
  'request.answer': 'accept or decline reservation requests',
  'inquiry.pre_approve': 'pre-approve inquiries',
  'inquiry.block_instant_booking': 'block instant booking on a pre-approval',
  'guest.write': 'create or update guests',
  'message.send': 'send messages',
  'message.attachments': 'send message attachments',
  'calendar.write': 'update availability and prices',
  'content.description': 'store the description content section',
  'content.amenities': 'store the amenities content section',
  'content.house_rules': 'store house rules text',
  'content.house_rule_switches': 'store house-rule switches',
  'content.rooms': 'store bedroom, bathroom and bed counts',
  'content.translations': 'store content in a non-default language',
} as const;
export type PmsWrite = keyof typeof WRITES;

/** What each PMS cannot do; everything else is supported. */
const UNSUPPORTED: Record<Provider, readonly PmsWrite[]> = {
  'PMS-A': ['reservation.cancel'],
  'PMS-B': ['reservation.change_dates'],
  'PMS-C': ['reservation.quote'],
  'PMS-D': ['reservation.quote'],
  'PMS-E': ['reservation.quote', 'reservation.unit_id', 'reservation.tentative_hold'],
  'PMS-F': [
    'reservation.unit_id',
    'review.reply',
    'request.answer',
    'inquiry.pre_approve',
    'inquiry.block_instant_booking',
    'guest.write',
    'message.attachments',
    'content.house_rule_switches',
  ],
  'PMS-G': ['message.attachments', 'inquiry.block_instant_booking', 'content.rooms', 'content.translations'],
};

/** Writes no PMS can perform on a PMS-managed listing. */
const UNSUPPORTED_ON_EVERY_PMS: readonly PmsWrite[] = ['reservation.owner_block', 'reservation.move_listing', 'reservation.change_times'];

/** Writes only the listed PMSs can perform. */
const ONLY_ON: Partial<Record<PmsWrite, readonly Provider[]>> = {
  'reservation.group_booking': ['PMS-D'],
};

/** Create-time requirements a PMS imposes (PMS-E needs the total price). */
export const CREATE_REQUIRES_TOTAL_PRICE: readonly Provider[] = ['PMS-E'];

export function isProvider(value: string): value is Provider {
  return (PROVIDERS as readonly string[]).includes(value);
}

/** Whether the PMS managing a listing can perform a write. No PMS ('') supports everything. */
export function supports(provider: string, write: PmsWrite): boolean {
  if (!provider) return true;
  if (!isProvider(provider)) return false;
  if (UNSUPPORTED_ON_EVERY_PMS.includes(write)) return false;
  const only = ONLY_ON[write];
  if (only && !only.includes(provider)) return false;
  return !UNSUPPORTED[provider].includes(write);
}

/** Throws `pms_write_unsupported` naming the PMS when it cannot perform the write. */
export function assertSupported(provider: string, write: PmsWrite): void {
  if (!supports(provider, write)) throw pmsWriteUnsupported(provider, WRITES[write]);
}

/** The writes among `writes` that the PMS cannot perform. */
export function unsupportedAmong(provider: string, writes: Iterable<PmsWrite>): PmsWrite[] {
  return [...new Set(writes)].filter((w) => !supports(provider, w));
}

export interface ReservationCapabilities {
  provider: string;
  create: boolean;
  modify: boolean;
  cancel: boolean;
  quote: boolean;
  customPrice: boolean;
  notes: boolean;
}

export interface PmsCapabilities {
  provider: string;
  reviewReplies: boolean;
  requestAnswers: boolean;
  preApprovals: boolean;
  contentSections: ContentSection[];
  guests: boolean;
  messageChannel: boolean;
  messageAttachments: boolean;
  calendar: boolean;
}

export function reservationCapabilities(provider: string): ReservationCapabilities {
  return {
    provider,
    create: supports(provider, 'reservation.create'),
    modify: supports(provider, 'reservation.modify'),
    cancel: supports(provider, 'reservation.cancel'),
    quote: supports(provider, 'reservation.quote'),
    customPrice: supports(provider, 'reservation.custom_price'),
    notes: supports(provider, 'reservation.notes'),
  };
}

export function pmsCapabilities(provider: string): PmsCapabilities {
  return {
    provider,
    reviewReplies: supports(provider, 'review.reply'),
    requestAnswers: supports(provider, 'request.answer'),
    preApprovals: supports(provider, 'inquiry.pre_approve'),
    contentSections: CONTENT_SECTIONS.filter((s) => supports(provider, `content.${s}`)),
    guests: supports(provider, 'guest.write'),
    messageChannel: supports(provider, 'message.send'),
    messageAttachments: supports(provider, 'message.attachments'),
    calendar: supports(provider, 'calendar.write'),
  };
}

// ---- the matrix in words (API reference descriptions are generated from these) ----

/** The PMSs whose API cannot perform a write. */
export function providersRefusing(write: PmsWrite): Provider[] {
  return PROVIDERS.filter((p) => !supports(p, write));
}

/** "PMS-A", "PMS-C, PMS-D and PMS-E". */
export function listOfProviders(providers: readonly string[]): string {
  if (providers.length <= 1) return providers.join('');
  return `${providers.slice(0, -1).join(', ')} and ${providers[providers.length - 1]}`;
}

/** Where a write is refused, in words: "PMS-E and PMS-F", "every PMS", "every PMS but PMS-D", "no PMS". */
export function refusedOn(write: PmsWrite): string {
  const refusing = providersRefusing(write);
  if (refusing.length === 0) return 'no PMS';
  if (refusing.length === PROVIDERS.length) return 'every PMS';
  const allowed = PROVIDERS.filter((p) => !refusing.includes(p));
  if (allowed.length < refusing.length) return `every PMS but ${listOfProviders(allowed)}`;
  return listOfProviders(refusing);
}

/** The sentence an API description uses: "Refused (422 pms_write_unsupported, nothing sent) on PMS-E and PMS-F." */
export function refusalNote(write: PmsWrite): string {
  return `Refused (422 pms_write_unsupported, nothing sent) on ${refusedOn(write)}.`;
}
