// Relayed writes: which HTTP request of the PMS API performs each write of the capability
// matrix, and whether it may be retried. No I/O here.
import { WRITES, type PmsWrite } from '@vrp/pms-matrix';

export interface RelayInput {
  operation: PmsWrite;
  listingExternalId: string;
  entityExternalId: string;
  /** The write's body as the caller sent it (a content section's value may be any JSON). */
  payload: unknown;
  idempotencyKey: string;
}

export interface PmsRequest {
  method: 'POST' | 'PATCH' | 'PUT';
  /** Path under the account, e.g. `reservations/abc/cancel`. */
  path: string;
  body: unknown;
  /** Sent as `Idempotency-Key`; empty = none. */
  idempotencyKey: string;
  /**
   * Retried after a timeout or a 5xx only when the PMS applies it at most once anyway: a PUT
   * (the same value twice is the same state) or a write carrying an idempotency key.
   */
  retryable: boolean;
}

export function isWrite(value: string): value is PmsWrite {
  return Object.prototype.hasOwnProperty.call(WRITES, value);
}

const CREATE_ASPECTS: readonly PmsWrite[] = [
  'reservation.create',
  'reservation.owner_block',
  'reservation.unit_id',
  'reservation.tentative_hold',
  'reservation.group_booking',
];
const MODIFY_ASPECTS: readonly PmsWrite[] = [
  'reservation.modify',
  'reservation.change_dates',
  'reservation.change_times',
  'reservation.move_listing',
  'reservation.notes',
  'reservation.custom_price',
];

/** Thrown for input a write needs and does not have; the handler maps it to validation_failed. */
export class RelayInputError extends Error {
  constructor(readonly fields: Record<string, string>) {
    super(
      Object.entries(fields)
        .map(([k, v]) => `${k} ${v}`)
        .join('; '),
    );
  }
}

const seg = encodeURIComponent;

/** The PMS request of a write. Throws RelayInputError when an id the write needs is missing. */
export function pmsRequestFor(input: RelayInput): PmsRequest {
  const { operation: op, listingExternalId: listing, entityExternalId: entity } = input;
  const fields: Record<string, unknown> =
    typeof input.payload === 'object' && input.payload !== null && !Array.isArray(input.payload) ? { ...(input.payload as Record<string, unknown>) } : {};
  const body = fields;
  const needEntity = () => {
    if (!entity) throw new RelayInputError({ entityExternalId: `is required for ${op}` });
    return seg(entity);
  };
  const needListing = () => {
    if (!listing) throw new RelayInputError({ listingExternalId: `is required for ${op}` });
    return seg(listing);
  };
  const withListing = () => {
    needListing();
    return { ...fields, listingId: listing };
  };
  let req: Omit<PmsRequest, 'idempotencyKey' | 'retryable'>;
  if (CREATE_ASPECTS.includes(op)) req = { method: 'POST', path: 'reservations', body: withListing() };
  else if (MODIFY_ASPECTS.includes(op)) req = { method: 'PATCH', path: `reservations/${needEntity()}`, body };
  else if (op === 'reservation.cancel') req = { method: 'POST', path: `reservations/${needEntity()}/cancel`, body };
  else if (op === 'reservation.quote') req = { method: 'POST', path: 'quotes', body: withListing() };
  else if (op === 'guest.write') req = entity ? { method: 'PATCH', path: `guests/${seg(entity)}`, body } : { method: 'POST', path: 'guests', body };
  else if (op === 'message.send' || op === 'message.attachments') req = { method: 'POST', path: 'messages', body: { ...fields, listingId: listing } };
  else if (op === 'review.reply') req = { method: 'POST', path: `reviews/${needEntity()}/reply`, body };
  else if (op === 'request.answer') req = { method: 'POST', path: `requests/${needEntity()}/answer`, body };
  else if (op === 'inquiry.pre_approve' || op === 'inquiry.block_instant_booking')
    req = { method: 'POST', path: `inquiries/${needEntity()}/pre-approve`, body };
  else if (op === 'calendar.write') req = { method: 'PUT', path: `listings/${needListing()}/calendar`, body: input.payload };
  else {
    // content.<section>: the section's value, stored whole (a PUT).
    const section = op.slice('content.'.length);
    req = { method: 'PUT', path: `listings/${needListing()}/content/${seg(section)}`, body: { value: input.payload } };
  }
  return { ...req, idempotencyKey: input.idempotencyKey, retryable: req.method === 'PUT' || input.idempotencyKey !== '' };
}
