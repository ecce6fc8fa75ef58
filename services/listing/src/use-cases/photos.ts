// The photos of a listing: list, add (once per Idempotency-Key), remove.
import { listing as pb } from '@vrp/contracts';
import { AppError, requestKey, requireId, requireWorkspace } from '@vrp/platform';
import { photoProblems } from '../domain/content';
import { type PhotoRecord } from '../store/data-store';
import { assertValid, dataContext, type DataContext, type ListingDataDeps, type ListingDataUseCases } from './data-context';

const toProtoPhoto = (p: PhotoRecord): pb.Photo => ({ id: p.id, url: p.url, caption: p.caption, position: p.position, createdAt: p.createdAt });

export function photoUseCases(
  deps: ListingDataDeps,
  ctx: DataContext = dataContext(deps),
): Pick<ListingDataUseCases, 'listPhotos' | 'addPhoto' | 'removePhoto'> {
  const { listings, applied } = deps;
  const { data, activeListing } = ctx;

  return {
    async listPhotos(req) {
      const listing = await activeListing(req);
      return { photos: (await data.listPhotos(listing)).map(toProtoPhoto) };
    },

    async addPhoto(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.listingId, 'listingId');
      assertValid(photoProblems(req.url, req.caption));
      // A key already applied answers the photo it added; no second photo is added.
      const key = requestKey('listing.addPhoto', req);
      return applied.once(
        key,
        async () => {
          const listing = await listings.resolveActive(req.workspaceId, req.listingId);
          const photo = await data.addPhoto(listing, req.url, req.caption, (added, tx) => applied.remember(key, JSON.stringify(toProtoPhoto(added)), tx));
          return { photo: toProtoPhoto(photo) };
        },
        async (result) => {
          const photo = JSON.parse(result) as pb.Photo & { createdAt: string };
          return { photo: { ...photo, createdAt: new Date(photo.createdAt) } };
        },
      );
    },

    async removePhoto(req) {
      requireId(req.photoId, 'photoId');
      const listing = await activeListing(req);
      // A photo of another listing (or workspace) is as unknown here as a made-up id.
      if (!(await data.removePhoto(listing, req.photoId))) {
        throw new AppError('not_found', `No photo with id '${req.photoId}' exists on listing '${listing.id}'.`);
      }
      return { photoId: req.photoId };
    },
  };
}
