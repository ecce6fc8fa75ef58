// gRPC transport of ListingService: decodes what the use cases need from each message, calls the
// use case (use-cases/listings.ts, use-cases/listing-data.ts) and encodes its answer
// (grpc/mappers.ts). grpc-js does the wire format and the platform's server maps errors; no rule
// and no store call lives here.
import { listing as pb } from '@vrp/contracts';
import { service, type ServiceRegistration } from '@vrp/platform/grpc';
import type { ListingDataDeps } from '../use-cases/data-context';
import { listingDataUseCases } from '../use-cases/listing-data';
import { listingUseCases } from '../use-cases/listings';
import {
  statusFilterFromProto,
  toProtoAvailability,
  toProtoCalendar,
  toProtoContent,
  toProtoContentPut,
  toProtoListing,
  toProtoPhoto,
  toProtoPublication,
  toProtoUsage,
} from './mappers';

export function listingService(deps: ListingDataDeps): ServiceRegistration {
  const listings = listingUseCases(deps);
  const data = listingDataUseCases(deps);
  return service(pb.ListingServiceService, {
    async listListings(req) {
      const { listings: items, page } = await listings.listListings(req, statusFilterFromProto(req.status));
      return { listings: items.map(toProtoListing), page };
    },
    getListing: async (req) => ({ listing: toProtoListing(await listings.getListing(req)) }),
    createListing: async (req) => ({ listing: toProtoListing(await listings.createListing(req)) }),
    setWorkspacePlan: async (req) => ({ usage: toProtoUsage(await listings.setWorkspacePlan(req)) }),
    getWorkspaceUsage: async (req) => ({ usage: toProtoUsage(await listings.getWorkspaceUsage(req)) }),
    setListingsActive: (req) => listings.setListingsActive(req),
    deleteListing: async (req) => ({ listing: toProtoListing(await listings.deleteListing(req)) }),
    deactivateConnectionListings: (req) => listings.deactivateConnectionListings(req),
    resolveListings: async (req) => ({ listings: (await listings.resolveListings(req)).map(toProtoListing) }),
    async findPmsListing(req) {
      const found = await listings.findPmsListing(req);
      return found.listing ? { listing: toProtoListing(found.listing), deleted: false } : { deleted: found.deleted };
    },
    getCalendar: async (req) => toProtoCalendar(await data.getCalendar(req)),
    updateAvailability: async (req) => toProtoAvailability(await data.updateAvailability(req)),
    getContent: async (req) => toProtoContent(await data.getContent(req)),
    putContent: async (req) => toProtoContentPut(await data.putContent(req)),
    listPhotos: async (req) => ({ photos: (await data.listPhotos(req)).map(toProtoPhoto) }),
    addPhoto: async (req) => ({ photo: toProtoPhoto(await data.addPhoto(req)) }),
    removePhoto: async (req) => ({ photoId: await data.removePhoto(req) }),
    publishListing: async (req) => toProtoPublication(await data.publishListing(req)),
  });
}
