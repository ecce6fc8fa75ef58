// What each simulated PMS's API accepts, endpoint by endpoint: the simulator's own description of
// PMS-A..PMS-G, written from the interface spec (section 7.2 and what it says per PMS) as each
// PMS's API documentation would state it. It is deliberately NOT derived from
// packages/pms-matrix: a test (test/matrix-agreement.test.ts) holds the matrix against this table
// write by write, so a wrong entry on either side fails it.
//
// A request the PMS's API cannot perform is answered 422 with code `unsupported`, naming what
// was refused. Everything not refused here is accepted.

export const PMS_NAMES = ['PMS-A', 'PMS-B', 'PMS-C', 'PMS-D', 'PMS-E', 'PMS-F', 'PMS-G'] as const;
export type PmsName = (typeof PMS_NAMES)[number];

export const PMS_SLUGS: Record<PmsName, string> = {
  'PMS-A': 'pms-a',
  'PMS-B': 'pms-b',
  'PMS-C': 'pms-c',
  'PMS-D': 'pms-d',
  'PMS-E': 'pms-e',
  'PMS-F': 'pms-f',
  'PMS-G': 'pms-g',
};

export function pmsOfSlug(slug: string): PmsName | null {
  const upper = slug.toUpperCase();
  return (PMS_NAMES as readonly string[]).includes(upper) ? (upper as PmsName) : null;
}

/** Listing content sections a PMS may store (PUT listings/:id/content/:section). */
export const SECTIONS = ['description', 'amenities', 'house_rules', 'house_rule_switches', 'rooms', 'translations'] as const;
export type Section = (typeof SECTIONS)[number];

/** One PMS's API: its endpoints (false = the PMS has no such endpoint) and what each accepts. */
export interface PmsApi {
  /** POST reservations. */
  createReservation: {
    /** `platform: "owner"` (an owner block). */
    ownerBlocks: boolean;
    /** A specific `unitId`. */
    unitIds: boolean;
    /** `tentativeHold: true`. */
    tentativeHolds: boolean;
    /** A `groupId` (a group booking). */
    groups: boolean;
  };
  /** PATCH reservations/:id. */
  modifyReservation: {
    /** New arrival or departure dates. */
    dates: boolean;
    /** `checkInTime` / `checkOutTime`. */
    times: boolean;
    /** A different `listingId`. */
    moveListing: boolean;
    notes: boolean;
    /** A total set by the host. */
    customPrice: boolean;
  };
  /** POST reservations/:id/cancel (and PATCH to status cancelled). */
  cancelReservation: boolean;
  /** POST quotes. */
  quotes: boolean;
  /** POST guests, PATCH guests/:id. */
  guests: boolean;
  /** PUT listings/:id/content/:section: the sections it stores. */
  contentSections: readonly Section[];
  /** PUT listings/:id/calendar. */
  calendar: boolean;
  /** POST messages; `attachments` on them. */
  messages: false | { attachments: boolean };
  /** POST reviews/:id/reply. */
  reviewReplies: boolean;
  /** POST requests/:id/answer (accept or decline a booking request). */
  requestAnswers: boolean;
  /** POST inquiries/:id/pre-approve; `blockInstantBooking: true` on it. */
  preApprovals: false | { blockInstantBooking: boolean };
}

/**
 * The API every PMS here documents, before its own gaps: no PMS books owner blocks or groups,
 * moves a stay to another listing or changes its check-in/check-out times.
 */
const COMMON: PmsApi = {
  createReservation: { ownerBlocks: false, unitIds: true, tentativeHolds: true, groups: false },
  modifyReservation: { dates: true, times: false, moveListing: false, notes: true, customPrice: true },
  cancelReservation: true,
  quotes: true,
  guests: true,
  contentSections: SECTIONS,
  calendar: true,
  messages: { attachments: true },
  reviewReplies: true,
  requestAnswers: true,
  preApprovals: { blockInstantBooking: true },
};

/** The endpoint table, one PMS per entry: what it accepts where it differs from COMMON. */
export const PMS_APIS: Record<PmsName, PmsApi> = {
  // PMS-A cannot cancel a reservation through its API.
  'PMS-A': { ...COMMON, cancelReservation: false },
  // PMS-B cannot change a reservation's dates.
  'PMS-B': { ...COMMON, modifyReservation: { ...COMMON.modifyReservation, dates: false } },
  // PMS-C has no quote API.
  'PMS-C': { ...COMMON, quotes: false },
  // PMS-D has no quote API; it is the only PMS that books groups.
  'PMS-D': { ...COMMON, quotes: false, createReservation: { ...COMMON.createReservation, groups: true } },
  // PMS-E has no quote API, books no specific unit and places no tentative holds.
  'PMS-E': { ...COMMON, quotes: false, createReservation: { ...COMMON.createReservation, unitIds: false, tentativeHolds: false } },
  // PMS-F books no specific unit, has no guest API, no review replies, no request answers and no
  // pre-approvals, sends no attachments, and stores no house-rule switches.
  'PMS-F': {
    ...COMMON,
    createReservation: { ...COMMON.createReservation, unitIds: false },
    guests: false,
    contentSections: SECTIONS.filter((s) => s !== 'house_rule_switches'),
    messages: { attachments: false },
    reviewReplies: false,
    requestAnswers: false,
    preApprovals: false,
  },
  // PMS-G sends no attachments, cannot block instant booking on a pre-approval, and stores no
  // bedroom/bathroom/bed counts and no text in a non-default language.
  'PMS-G': {
    ...COMMON,
    contentSections: SECTIONS.filter((s) => s !== 'rooms' && s !== 'translations'),
    messages: { attachments: false },
    preApprovals: { blockInstantBooking: false },
  },
};

/** The kinds of write the PMS API serves (one per endpoint); fault injection names them. */
export const WRITE_KINDS = [
  'reservation.create',
  'reservation.modify',
  'reservation.cancel',
  'quote',
  'guest.create',
  'guest.update',
  'content',
  'calendar',
  'message.send',
  'review.reply',
  'request.answer',
  'inquiry.pre_approve',
] as const;
export type WriteKind = (typeof WRITE_KINDS)[number];
