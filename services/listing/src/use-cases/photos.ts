// The photos of a listing: list, add (once per Idempotency-Key), remove.
import { AppError } from '@vrp/platform/errors';
import { requireId, requireWorkspace } from '@vrp/platform/paging';
import { type RequestKey } from '@vrp/platform/applied-requests';
import { photoOf, photoProblems, type Photo } from '../domain/content';
import { activeListing, assertValid, type ListingDeps, type ListingRef } from './deps';

/** A photo kept with an Idempotency-Key: JSON of a Photo, its date revived. */
const revivePhoto = (result: string): Photo => {
  const photo = JSON.parse(result) as Omit<Photo, 'createdAt'> & { createdAt: string };
  return { ...photo, createdAt: new Date(photo.createdAt) };
};

export async function listPhotos(deps: ListingDeps, ref: ListingRef): Promise<Photo[]> {
  const listing = await activeListing(deps, ref);
  return deps.data.listPhotos(listing);
}

/** A key already applied answers the photo it added; no second photo is added. */
export async function addPhoto(deps: ListingDeps, ref: ListingRef, photo: { url: string; caption: string }, key: RequestKey | null): Promise<Photo> {
  const { listings, data, applied } = deps;
  requireWorkspace(ref.workspaceId);
  requireId(ref.listingId, 'listingId');
  assertValid(photoProblems(photo.url, photo.caption));
  return applied.once(
    key,
    async () => {
      const listing = await listings.resolveActive(ref.workspaceId, ref.listingId);
      return data.addPhoto(listing, photo.url, photo.caption, (added, tx) => applied.remember(key, JSON.stringify(photoOf(added)), tx));
    },
    async (result) => revivePhoto(result),
  );
}

/** Removes the photo and answers its id. */
export async function removePhoto(deps: ListingDeps, ref: ListingRef, photoId: string): Promise<string> {
  requireId(photoId, 'photoId');
  const listing = await activeListing(deps, ref);
  // A photo of another listing (or workspace) is as unknown here as a made-up id.
  if (!(await deps.data.removePhoto(listing, photoId))) {
    throw new AppError('not_found', `No photo with id '${photoId}' exists on listing '${listing.id}'.`);
  }
  return photoId;
}
