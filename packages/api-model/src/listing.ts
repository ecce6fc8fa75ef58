// The API's JSON of a listing (spec 2.3) and its capabilities, from the listing service's
// proto message. Responses and webhook payloads (listing.activated...) both use these.
import type { listing as pb } from '@vrp/contracts';

export interface ApiChannelMapping {
  channel: string;
  externalId: string;
}

export interface ApiAddress {
  line1: string;
  line2: string;
  city: string;
  region: string;
  postalCode: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
}

/** An active listing. */
export interface ApiListing {
  id: string;
  name: string;
  status: 'active';
  channels: ApiChannelMapping[];
  address: ApiAddress | null;
  timezone: string;
  currency: string;
  maxGuests: number;
  bedrooms: number;
  bathrooms: number;
  beds: number;
  checkInTime: string;
  checkOutTime: string;
  /** The PMS managing the listing, null when none. */
  pms: { provider: string; externalId: string } | null;
  createdAt: string | null;
  updatedAt: string | null;
}

/** Spec 2.3: an inactive listing's row carries only id, name, status and channels. */
export interface ApiInactiveListingRow {
  id: string;
  name: string;
  status: 'inactive';
  channels: ApiChannelMapping[];
}

export type ApiListingRow = ApiListing | ApiInactiveListingRow;

export interface ApiCapabilities {
  reservations: {
    provider: string | null;
    create: boolean;
    modify: boolean;
    cancel: boolean;
    quote: boolean;
    customPrice: boolean;
    notes: boolean;
  };
  pms: {
    provider: string | null;
    reviewReplies: boolean;
    requestAnswers: boolean;
    preApprovals: boolean;
    contentSections: string[];
    guests: boolean;
    messageChannel: boolean;
    messageAttachments: boolean;
    calendar: boolean;
  };
}

export type ApiListingWithCapabilities = ApiListing & { capabilities: ApiCapabilities };

const iso = (date: Date | undefined): string | null => (date ? date.toISOString() : null);
const orNull = (value: string): string | null => (value === '' ? null : value);

function channelsOf(l: pb.Listing): ApiChannelMapping[] {
  return l.channels.map((c) => ({ channel: c.channel, externalId: c.externalId }));
}

export function toInactiveListingRow(l: pb.Listing): ApiInactiveListingRow {
  return { id: l.id, name: l.name, status: 'inactive', channels: channelsOf(l) };
}

export function toApiListing(l: pb.Listing): ApiListing {
  return {
    id: l.id,
    name: l.name,
    status: 'active',
    channels: channelsOf(l),
    address: l.address
      ? { line1: l.address.line1, line2: l.address.line2, city: l.address.city, region: l.address.region, postalCode: l.address.postalCode, country: l.address.country }
      : null,
    timezone: l.timezone,
    currency: l.currency,
    maxGuests: l.maxGuests,
    bedrooms: l.bedrooms,
    bathrooms: l.bathrooms,
    beds: l.beds,
    checkInTime: l.checkInTime,
    checkOutTime: l.checkOutTime,
    pms: l.pmsProvider ? { provider: l.pmsProvider, externalId: l.pmsExternalId } : null,
    createdAt: iso(l.createdAt),
    updatedAt: iso(l.updatedAt),
  };
}

/** A list row: the full listing when active, the reduced row otherwise (anything not "active" shows less, never more). */
export function toListingRow(l: pb.Listing): ApiListingRow {
  return l.status === 'active' ? toApiListing(l) : toInactiveListingRow(l);
}

export function toApiCapabilities(c: pb.Capabilities | undefined): ApiCapabilities {
  const r = c?.reservations;
  const p = c?.pms;
  return {
    reservations: {
      provider: orNull(r?.provider ?? ''),
      create: r?.create ?? false,
      modify: r?.modify ?? false,
      cancel: r?.cancel ?? false,
      quote: r?.quote ?? false,
      customPrice: r?.customPrice ?? false,
      notes: r?.notes ?? false,
    },
    pms: {
      provider: orNull(p?.provider ?? ''),
      reviewReplies: p?.reviewReplies ?? false,
      requestAnswers: p?.requestAnswers ?? false,
      preApprovals: p?.preApprovals ?? false,
      contentSections: [...(p?.contentSections ?? [])],
      guests: p?.guests ?? false,
      messageChannel: p?.messageChannel ?? false,
      messageAttachments: p?.messageAttachments ?? false,
      calendar: p?.calendar ?? false,
    },
  };
}

export function toApiListingWithCapabilities(l: pb.Listing): ApiListingWithCapabilities {
  return { ...toApiListing(l), capabilities: toApiCapabilities(l.capabilities) };
}
