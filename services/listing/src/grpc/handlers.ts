// gRPC transport of ListingService: maps each message to the use case's domain input
// (grpc/mappers.ts), calls the use case and encodes its answer. grpc-js does the wire format and
// the platform's server maps errors; no rule and no store call lives here.
import { listing as pb } from '@vrp/contracts';
import { listResponse } from '@vrp/platform/paging';
import { requestKey } from '@vrp/platform/applied-requests';
import { service, type ServiceRegistration } from '@vrp/platform/grpc';
import { deleteListing } from '../use-cases/activity';
import { getCalendar, resolveStay, updateAvailability } from '../use-cases/calendar';
import { getContent, putContent } from '../use-cases/content';
import type { ListingDeps } from '../use-cases/deps';
import {
  createListing,
  deactivateConnectionListings,
  findPmsListing,
  getListing,
  getWorkspaceUsage,
  listListings,
  resolveListings,
  setListingsActive,
  setWorkspacePlan,
} from '../use-cases/listings';
import { addPhoto, listPhotos, removePhoto } from '../use-cases/photos';
import { publishListing } from '../use-cases/publish';
import {
  newListingFromProto,
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

export function listingService(deps: ListingDeps): ServiceRegistration {
  return service(pb.ListingServiceService, {
    listListings: (req) =>
      listResponse('listings', req.page, (window) => listListings(deps, req.workspaceId, statusFilterFromProto(req.status), window), toProtoListing),
    getListing: async (req) => ({ listing: toProtoListing(await getListing(deps, req.workspaceId, req.id, req.allowInactive)) }),
    createListing: async (req) => ({ listing: toProtoListing(await createListing(deps, req.workspaceId, newListingFromProto(req.listing), req.inactive)) }),
    setWorkspacePlan: async (req) => ({ usage: toProtoUsage(await setWorkspacePlan(deps, req.workspaceId, req.activeListingLimit)) }),
    getWorkspaceUsage: async (req) => ({ usage: toProtoUsage(await getWorkspaceUsage(deps, req.workspaceId)) }),
    setListingsActive: async (req) => {
      const outcome = await setListingsActive(deps, req, requestKey('listing.setListingsActive', req));
      return { ...outcome, listings: outcome.listings.map(toProtoListing) };
    },
    deleteListing: async (req) => ({ listing: toProtoListing(await deleteListing(deps, req.workspaceId, req.id)) }),
    deactivateConnectionListings: async (req) => ({
      deactivated: await deactivateConnectionListings(deps, req.workspaceId, req.pmsProvider, req.pmsExternalIds),
    }),
    resolveListings: async (req) => ({ listings: (await resolveListings(deps, req.workspaceId, req.ids)).map(toProtoListing) }),
    async findPmsListing(req) {
      const found = await findPmsListing(deps, req.workspaceId, req.provider, req.externalId);
      return found.listing ? { listing: toProtoListing(found.listing), deleted: false } : { deleted: found.deleted };
    },
    getCalendar: async (req) => toProtoCalendar(await getCalendar(deps, req)),
    async resolveStay(req) {
      const { listing, days } = await resolveStay(deps, req);
      return { listing: toProtoListing(listing), days };
    },
    updateAvailability: async (req) =>
      toProtoAvailability(await updateAvailability(deps, req.workspaceId, req.updates, requestKey('listing.updateAvailability', req))),
    getContent: async (req) => toProtoContent(await getContent(deps, req)),
    putContent: async (req) => toProtoContentPut(await putContent(deps, req)),
    listPhotos: async (req) => ({ photos: (await listPhotos(deps, req)).map(toProtoPhoto) }),
    addPhoto: async (req) => ({ photo: toProtoPhoto(await addPhoto(deps, req, req, requestKey('listing.addPhoto', req))) }),
    removePhoto: async (req) => ({ photoId: await removePhoto(deps, req, req.photoId) }),
    publishListing: async (req) => toProtoPublication(await publishListing(deps, req, requestKey('listing.publishListing', req))),
  });
}
