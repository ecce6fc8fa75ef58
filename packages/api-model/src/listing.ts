// The API's JSON of a listing (docs/listings.md) and its capabilities, from the listing service's
// proto message. Responses and webhook payloads (listing.activated...) both use these; the
// types are the schemas' (./schemas/listing.ts).
import type { z } from 'zod';
import type { listing as pb } from '@vrp/contracts';
import type { photoSchema } from './schemas/listing-data';
import type { capabilitiesSchema, inactiveListingRowSchema, listingSchema, listingWithCapabilitiesSchema } from './schemas/listing';

export type ApiListing = z.infer<typeof listingSchema>;
export type ApiChannelMapping = ApiListing['channels'][number];
export type ApiAddress = NonNullable<ApiListing['address']>;
/** An inactive listing's row carries only id, name, status and channels. */
export type ApiInactiveListingRow = z.infer<typeof inactiveListingRowSchema>;
export type ApiListingRow = ApiListing | ApiInactiveListingRow;
export type ApiCapabilities = z.infer<typeof capabilitiesSchema>;
export type ApiListingWithCapabilities = z.infer<typeof listingWithCapabilitiesSchema>;
export type ApiPhoto = z.infer<typeof photoSchema>;

const iso = (date: Date | undefined): string | null => (date ? date.toISOString() : null);
const orNull = (value: string): string | null => (value === '' ? null : value);

function channelsOf(l: pb.Listing): ApiChannelMapping[] {
  return l.channels.map((c) => ({ channel: c.channel, externalId: c.externalId }));
}

/** A listing's settings: the same names and values in the listing record, its proto message and the API's JSON. */
export type ListingSettings = Pick<ApiListing, 'timezone' | 'currency' | 'maxGuests' | 'bedrooms' | 'bathrooms' | 'beds' | 'checkInTime' | 'checkOutTime'>;

export function listingSettingsOf(l: ListingSettings): ListingSettings {
  return {
    timezone: l.timezone,
    currency: l.currency,
    maxGuests: l.maxGuests,
    bedrooms: l.bedrooms,
    bathrooms: l.bathrooms,
    beds: l.beds,
    checkInTime: l.checkInTime,
    checkOutTime: l.checkOutTime,
  };
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
      ? {
          line1: l.address.line1,
          line2: l.address.line2,
          city: l.address.city,
          region: l.address.region,
          postalCode: l.address.postalCode,
          country: l.address.country,
        }
      : null,
    ...listingSettingsOf(l),
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

export function toApiPhoto(p: pb.Photo): ApiPhoto {
  return { id: p.id, url: p.url, caption: p.caption, position: p.position, createdAt: iso(p.createdAt) };
}
