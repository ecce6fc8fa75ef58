// Input from a PMS is input: the entity of every pms.sync.v1 change is held to the API's own
// vocabulary and limits (./vocabulary, the same constants the API's schemas use) before a
// service applies it. Each kind of difference has one rule (docs/pms.md, "What a PMS sends"):
//
// | difference                                                        | rule      |
// |-------------------------------------------------------------------|-----------|
// | whitespace around text                                            | trimmed   |
// | NUL and other control characters in text (tab and newlines stay)  | removed   |
// | unpaired UTF-16 surrogates in text                                | U+FFFD    |
// | a currency code in lower case                                     | upper-cased |
// | a language tag the API would not accept                           | dropped (no stated language) |
// | text longer than the API accepts for that field                   | refused   |
// | money that is negative, not a number, or above the API's maximum  | refused   |
// | a currency that is not three letters                              | refused   |
// | a stay whose dates are not real, that ends before it starts, or   | refused   |
// |   is longer than MAX_NIGHTS nights                                |           |
// | a negative count (occupancy, guests, rooms)                       | refused   |
// | a required name that is empty once normalised                     | refused   |
// | an attachment URL that is not http(s), or too many attachments    | refused   |
//
// A refusal is a PermanentError `malformed_payload` naming every field and what is wrong with
// it: the consumer sets the change aside as a dead letter (retrying cannot fix it), and the
// connection's sync health counts it and shows the message as its last error. Pure: no I/O.
import type { pmsSync } from '@vrp/contracts';
import { PermanentError } from '@vrp/platform/consumer';
import {
  ATTACHMENT_URL_PATTERN,
  CURRENCY_PATTERN,
  DATE_PATTERN,
  GUEST_LANGUAGE_PATTERN,
  MAX_ATTACHMENT_URL_LENGTH,
  MAX_ATTACHMENTS,
  MAX_GUEST_NAME_LENGTH,
  MAX_ID_LENGTH,
  MAX_LISTING_NAME_LENGTH,
  MAX_LISTING_NIGHTLY_PRICE,
  MAX_MESSAGE_LENGTH,
  MAX_NIGHTS,
  MAX_PRICE,
  MAX_PRIMARY_GUEST_NAME_LENGTH,
  MAX_PRIMARY_GUEST_PHONE_LENGTH,
  MAX_REVIEW_REPLY_LENGTH,
} from './vocabulary';

type Change = pmsSync.PmsSyncChange;
type Person = NonNullable<pmsSync.SyncReservation['guest']>;

/** Longest e-mail address (RFC 5321's path limit). */
const MAX_EMAIL_LENGTH = 254;
const DAY_MS = 86_400_000;

/** Text as the API would store it: trimmed, without NUL or other control characters, no unpaired surrogates. */
export function normalizePmsText(value: string): string {
  return (
    value
      // eslint-disable-next-line no-control-regex -- removing control characters is the point
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
      .trim()
  );
}

/** A real calendar day written YYYY-MM-DD, as epoch milliseconds; null when it is not one. */
function dayOf(value: string): number | null {
  if (!DATE_PATTERN.test(value)) return null;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value ? null : ms;
}

/** Collects what is wrong with one entity, field by field, while normalising what is harmless. */
class Check {
  readonly problems: string[] = [];

  constructor(private readonly entity: string) {}

  refuse(field: string, problem: string): void {
    this.problems.push(`${this.entity}.${field} ${problem}`);
  }

  /** Normalised text, refused over `max` characters (or empty when `required`). */
  text(field: string, value: string, max: number, required = false): string {
    const clean = normalizePmsText(value);
    if (clean.length > max) this.refuse(field, `is ${clean.length} characters long; at most ${max} are accepted`);
    if (required && clean === '') this.refuse(field, 'is empty');
    return clean;
  }

  optText(field: string, value: string | undefined, max: number): string | undefined {
    if (value === undefined) return undefined;
    const clean = this.text(field, value, max);
    return clean === '' ? undefined : clean;
  }

  money(field: string, value: number | undefined, max: number): number | undefined {
    if (value === undefined) return undefined;
    if (!Number.isFinite(value) || value < 0 || value > max) this.refuse(field, `is ${value}; money must be a number from 0 to ${max}`);
    return value;
  }

  currency(field: string, value: string | undefined): string | undefined {
    if (value === undefined) return undefined;
    const code = normalizePmsText(value).toUpperCase();
    if (!CURRENCY_PATTERN.test(code)) this.refuse(field, `is '${code.slice(0, 20)}'; a currency is a three-letter ISO 4217 code`);
    return code;
  }

  count(field: string, value: number | undefined): void {
    if (value !== undefined && (!Number.isInteger(value) || value < 0)) this.refuse(field, `is ${value}; a count is a non-negative integer`);
  }

  /** A stay as the API accepts one: real dates, check-out after check-in, at most MAX_NIGHTS nights. */
  stay(checkIn: string, checkOut: string): void {
    const from = dayOf(checkIn);
    const to = dayOf(checkOut);
    if (from === null) this.refuse('checkIn', `is '${checkIn.slice(0, 20)}', not a date (YYYY-MM-DD)`);
    if (to === null) this.refuse('checkOut', `is '${checkOut.slice(0, 20)}', not a date (YYYY-MM-DD)`);
    if (from === null || to === null) return;
    const nights = (to - from) / DAY_MS;
    if (nights < 1) this.refuse('checkOut', `(${checkOut}) is not after checkIn (${checkIn})`);
    else if (nights > MAX_NIGHTS) this.refuse('checkOut', `makes a stay of ${nights} nights; at most ${MAX_NIGHTS} are accepted`);
  }

  person(field: string, p: Person, maxName: number): Person {
    const language = p.language === undefined ? undefined : normalizePmsText(p.language);
    return {
      ...p,
      firstName: this.text(`${field}firstName`, p.firstName, maxName, true),
      lastName: this.optText(`${field}lastName`, p.lastName, maxName),
      email: this.optText(`${field}email`, p.email, MAX_EMAIL_LENGTH),
      phone: this.optText(`${field}phone`, p.phone, MAX_PRIMARY_GUEST_PHONE_LENGTH),
      // A tag the API would refuse says nothing usable: the guest has no stated language.
      language: language && GUEST_LANGUAGE_PATTERN.test(language) ? language : undefined,
    };
  }
}

function listing(c: Check, l: NonNullable<Change['listing']>): NonNullable<Change['listing']> {
  for (const f of ['maxGuests', 'bedrooms', 'bathrooms', 'beds'] as const) c.count(f, l[f]);
  return {
    ...l,
    name: c.text('name', l.name, MAX_LISTING_NAME_LENGTH, true),
    currency: c.currency('currency', l.currency),
    defaultNightlyPrice: c.money('defaultNightlyPrice', l.defaultNightlyPrice, MAX_LISTING_NIGHTLY_PRICE),
    cleaningFee: c.money('cleaningFee', l.cleaningFee, MAX_LISTING_NIGHTLY_PRICE),
    timezone: c.optText('timezone', l.timezone, MAX_ID_LENGTH),
  };
}

function reservation(c: Check, r: NonNullable<Change['reservation']>): NonNullable<Change['reservation']> {
  c.stay(r.checkIn, r.checkOut);
  if (r.occupancy) for (const f of ['adults', 'children', 'infants', 'pets'] as const) c.count(`occupancy.${f}`, r.occupancy[f]);
  return {
    ...r,
    guest: r.guest ? c.person('guest.', r.guest, MAX_PRIMARY_GUEST_NAME_LENGTH) : r.guest,
    totalPrice: c.money('totalPrice', r.totalPrice, MAX_PRICE),
    currency: c.currency('currency', r.currency),
  };
}

function guest(c: Check, g: NonNullable<Change['guest']>): NonNullable<Change['guest']> {
  return { ...g, ...c.person('', { ...g, externalId: undefined }, MAX_GUEST_NAME_LENGTH), externalId: g.externalId };
}

function message(c: Check, m: NonNullable<Change['message']>): NonNullable<Change['message']> {
  if (m.attachments.length > MAX_ATTACHMENTS) c.refuse('attachments', `holds ${m.attachments.length}; at most ${MAX_ATTACHMENTS} are accepted`);
  m.attachments.forEach((a, i) => {
    if (a.url.length > MAX_ATTACHMENT_URL_LENGTH || !ATTACHMENT_URL_PATTERN.test(a.url))
      c.refuse(`attachments[${i}].url`, `is not an http(s) URL of at most ${MAX_ATTACHMENT_URL_LENGTH} characters`);
  });
  return { ...m, body: c.text('body', m.body, MAX_MESSAGE_LENGTH), channel: c.optText('channel', m.channel, MAX_ID_LENGTH) };
}

function review(c: Check, r: NonNullable<Change['review']>): NonNullable<Change['review']> {
  return {
    ...r,
    guestName: c.optText('guestName', r.guestName, MAX_GUEST_NAME_LENGTH),
    body: c.text('body', r.body, MAX_MESSAGE_LENGTH),
    channel: c.optText('channel', r.channel, MAX_ID_LENGTH),
    reply: r.reply ? { ...r.reply, body: c.text('reply.body', r.reply.body, MAX_REVIEW_REPLY_LENGTH) } : r.reply,
  };
}

function request(c: Check, r: NonNullable<Change['request']>): NonNullable<Change['request']> {
  c.stay(r.checkIn, r.checkOut);
  c.count('guests', r.guests);
  return {
    ...r,
    guest: r.guest ? c.person('guest.', r.guest, MAX_PRIMARY_GUEST_NAME_LENGTH) : r.guest,
    message: c.optText('message', r.message, MAX_MESSAGE_LENGTH),
    channel: c.optText('channel', r.channel, MAX_ID_LENGTH),
  };
}

/**
 * The change with its entity normalised (see the table above), or a PermanentError
 * `malformed_payload` naming every field the API would refuse. A change whose entity member is
 * absent is returned as it is (its consumer decides).
 */
export function checkPmsInput(change: Change): Change {
  const c = new Check(change.entity);
  let checked: Change = change;
  if (change.entity === 'listing' && change.listing) checked = { ...change, listing: listing(c, change.listing) };
  else if (change.entity === 'reservation' && change.reservation) checked = { ...change, reservation: reservation(c, change.reservation) };
  else if (change.entity === 'guest' && change.guest) checked = { ...change, guest: guest(c, change.guest) };
  else if (change.entity === 'message' && change.message) checked = { ...change, message: message(c, change.message) };
  else if (change.entity === 'review' && change.review) checked = { ...change, review: review(c, change.review) };
  else if (change.entity === 'request' && change.request) checked = { ...change, request: request(c, change.request) };
  else if (change.entity === 'inquiry' && change.inquiry) checked = { ...change, inquiry: request(c, change.inquiry) };
  if (c.problems.length > 0) {
    throw new PermanentError(
      'malformed_payload',
      `${change.provider} ${change.entity} ${change.externalId} (change ${change.changeId}) breaks the API's rules: ${c.problems.join('; ')}`,
    );
  }
  return checked;
}
