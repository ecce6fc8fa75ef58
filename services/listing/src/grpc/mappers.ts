// Domain <-> proto for the listing service.
import { listingSettingsOf } from '@vrp/api-model';
import { listing as pb } from '@vrp/contracts';
import { pmsCapabilities, reservationCapabilities } from '@vrp/pms-matrix';
import type { ListingRecord, ListingStatusFilter, WorkspaceUsage } from '../domain/listing';

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
