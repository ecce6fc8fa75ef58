// The photos of a listing: list, add (once per Idempotency-Key), remove.
import { listing as pb } from '@vrp/contracts';
import { AppError } from '@vrp/platform/errors';
import { requestKey } from '@vrp/platform/applied-requests';
import { requireId, requireWorkspace } from '@vrp/platform/paging';
import { photoOf, photoProblems, type Photo } from '../domain/content';
import { assertValid, dataContext, type DataContext, type ListingDataDeps } from './data-context';

/** A photo kept with an Idempotency-Key: JSON of a Photo, its date revived. */
const revivePhoto = (result: string): Photo => {
  const photo = JSON.parse(result) as Omit<Photo, 'createdAt'> & { createdAt: string };
  return { ...photo, createdAt: new Date(photo.createdAt) };
};

export function photoUseCases(deps: ListingDataDeps, ctx: DataContext = dataContext(deps)) {
  const { listings, applied } = deps;
  const { data, activeListing } = ctx;

  return {
    async listPhotos(req: pb.ListPhotosRequest): Promise<Photo[]> {
      const listing = await activeListing(req);
      return data.listPhotos(listing);
    },

    async addPhoto(req: pb.AddPhotoRequest): Promise<Photo> {
      requireWorkspace(req.workspaceId);
      requireId(req.listingId, 'listingId');
      assertValid(photoProblems(req.url, req.caption));
      // A key already applied answers the photo it added; no second photo is added.
      const key = requestKey('listing.addPhoto', req);
      return applied.once(
        key,
        async () => {
          const listing = await listings.resolveActive(req.workspaceId, req.listingId);
          return data.addPhoto(listing, req.url, req.caption, (added, tx) => applied.remember(key, JSON.stringify(photoOf(added)), tx));
        },
        async (result) => revivePhoto(result),
      );
    },

    /** Removes the photo and answers its id. */
    async removePhoto(req: pb.RemovePhotoRequest): Promise<string> {
      requireId(req.photoId, 'photoId');
      const listing = await activeListing(req);
      // A photo of another listing (or workspace) is as unknown here as a made-up id.
      if (!(await data.removePhoto(listing, req.photoId))) {
        throw new AppError('not_found', `No photo with id '${req.photoId}' exists on listing '${listing.id}'.`);
      }
      return req.photoId;
    },
  };
}
