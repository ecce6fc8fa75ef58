// Domain <-> proto for the listing service: requests to the use cases' inputs, records to messages.
import { listingSettingsOf } from '@vrp/api-model';
import { listing as pb } from '@vrp/contracts';
import { pmsCapabilities, reservationCapabilities } from '@vrp/pms-matrix';
import type { AvailabilityOutcome, ListingCalendar } from '../domain/calendar';
import { inSectionOrder, photoOf, type ContentPutOutcome, type ListingContent, type Photo, type SectionValues } from '../domain/content';
import type { ListingRecord, ListingStatusFilter, NewListingInput, Publication, WorkspaceUsage } from '../domain/listing';

export function toProtoListing(l: ListingRecord): pb.Listing {
  return pb.Listing.create({
    id: l.id,
    workspaceId: l.workspaceId,
    name: l.name,
    status: l.status,
    channels: l.channels.map((c) => ({ channel: c.channel, externalId: c.externalId })),
    address: { ...l.address },
    ...listingSettingsOf(l),
    pmsProvider: l.pmsProvider,
    pmsExternalId: l.pmsExternalId,
    createdAt: l.createdAt,
    updatedAt: l.updatedAt,
    defaultNightlyPrice: l.defaultNightlyPrice,
    cleaningFee: l.cleaningFee,
    taxRate: l.taxRate,
    publishedAt: l.publishedAt ?? undefined,
    version: l.version,
    activityVersion: l.activityVersion,
    // Read from the one capability matrix, never stored per listing.
    capabilities: { reservations: reservationCapabilities(l.pmsProvider), pms: pmsCapabilities(l.pmsProvider) },
  });
}

/** The listing of a CreateListing request (absent: an empty one, refused for its missing name). */
export function newListingFromProto(l: pb.Listing | undefined): NewListingInput {
  const input = l ?? pb.Listing.create();
  return {
    name: input.name,
    channels: input.channels.map((c) => ({ channel: c.channel, externalId: c.externalId })),
    address: {
      line1: input.address?.line1 ?? '',
      line2: input.address?.line2 ?? '',
      city: input.address?.city ?? '',
      region: input.address?.region ?? '',
      postalCode: input.address?.postalCode ?? '',
      country: input.address?.country ?? '',
    },
    timezone: input.timezone,
    currency: input.currency,
    maxGuests: input.maxGuests,
    bedrooms: input.bedrooms,
    bathrooms: input.bathrooms,
    beds: input.beds,
    checkInTime: input.checkInTime,
    checkOutTime: input.checkOutTime,
    pmsProvider: input.pmsProvider,
    pmsExternalId: input.pmsExternalId,
    defaultNightlyPrice: input.defaultNightlyPrice,
    cleaningFee: input.cleaningFee,
    taxRate: input.taxRate,
  };
}

export function statusFilterFromProto(f: pb.ListingStatusFilter): ListingStatusFilter {
  switch (f) {
    case pb.ListingStatusFilter.LISTING_STATUS_FILTER_INACTIVE:
      return 'inactive';
    case pb.ListingStatusFilter.LISTING_STATUS_FILTER_ALL:
      return 'all';
    default:
      return 'active';
  }
}

export function toProtoUsage(u: WorkspaceUsage): pb.WorkspaceUsage {
  return pb.WorkspaceUsage.create({ ...u });
}

// ---- the data of a listing ----

/** A calendar day is the same five fields on the wire. */
export const toProtoCalendar = (c: ListingCalendar): pb.GetCalendarResponse => ({ listingId: c.listingId, currency: c.currency, days: c.days });

export const toProtoAvailability = (o: AvailabilityOutcome): pb.UpdateAvailabilityResponse => ({ listingIds: o.listingIds, daysUpdated: o.daysUpdated });

/** Sections in the order of CONTENT_SECTIONS, each value as JSON. */
const toProtoSections = (values: SectionValues): pb.ContentSection[] =>
  inSectionOrder(values).map(([name, value]) => ({ name, valueJson: JSON.stringify(value) }));

export const toProtoContent = ({ listingId, content }: ListingContent): pb.GetContentResponse => ({
  listingId,
  sections: toProtoSections(content.sections),
  updatedAt: content.updatedAt ?? undefined,
  version: content.version,
});

export const toProtoContentPut = (o: ContentPutOutcome): pb.PutContentResponse => ({
  listingId: o.listingId,
  applied: o.applied,
  deferred: o.deferred,
  pmsProvider: o.pmsProvider,
  pmsErrors: o.errors,
  sections: toProtoSections(o.content.sections),
  version: o.content.version,
});

/** The gRPC Photo has the fields of a Photo. */
export const toProtoPhoto = (p: Photo): pb.Photo => photoOf(p);

export const toProtoPublication = (p: Publication): pb.PublishListingResponse => ({ listingId: p.listingId, publishedAt: p.publishedAt, channels: p.channels });
