// The listing toggles (which work on inactive listings) and the data of a listing (calendar,
// availability, content, photos, publishing), all relayed to the listing service. The listing
// service decides not_found before listing_inactive, and writes nothing when a request names
// an inactive listing.
import { z } from 'zod';
import { listing as pb } from '@vrp/contracts';
import type { Upstream } from '@vrp/platform/grpc';
import { etagOf } from '../../domain/etag';
import { expectedVersion, withETag } from '../versioning';
import { idempotencyKeyOf } from '../middleware/idempotency';
import { defineRoute, ok, type Route } from '../route';
import {
  idParam,
  listingRowSchema,
  MAX_CALENDAR_RANGE_DAYS,
  MAX_PHOTOS,
  toApiAvailabilityResult,
  toApiCalendar,
  toApiContent,
  toApiContentWriteResult,
  toApiPhoto,
  toApiPublishResult,
  toListingRow,
  activeToggleBody,
  addPhotoBody,
  availabilityBatchBody,
  availabilityResultSchema,
  calendarQuery,
  calendarSchema,
  contentBody,
  contentResponseSchema,
  contentWriteResultSchema,
  photoSchema,
  publishResultSchema,
  statusBatchBody,
  statusBatchResultSchema,
  deletedSchema,
} from '@vrp/api-model';

const listingParams = z.strictObject({ id: idParam('A listing id, or a channel id mapped to a listing.') });
const photoParams = z.strictObject({ id: idParam('A listing id, or a channel id mapped to a listing.'), photoId: idParam('A photo id.') });

export function listingDataRoutes(upstream: Upstream<pb.ListingServiceClient>): Route[] {
  /** Reads the listing after a toggle; toggles work on inactive listings, so allowInactive. */
  const current = async (workspaceId: string, id: string) => {
    const { listing } = await upstream.call('getListing', { workspaceId, id, allowInactive: true });
    if (!listing) throw new Error('listing service answered GetListing without a listing');
    return listing;
  };
  const toggledSchema = z.object({ data: listingRowSchema });

  return [
    defineRoute({
      method: 'patch',
      path: '/v1/listings/:id',
      operationId: 'setListingActive',
      summary: 'Activate or deactivate a listing',
      description:
        'Works on inactive listings. Activating counts the listing toward the plan limit (402 listings_limit_exceeded when the plan is full); deactivating stops billing and webhook delivery while its data keeps syncing. With `If-Match` (the `ETag` of GET), a listing changed since is 412 precondition_failed and nothing changes.',
      tags: ['Listings'],
      auth: 'api_key',
      params: listingParams,
      body: activeToggleBody,
      versioned: true,
      responses: { 200: toggledSchema },
      errors: ['not_found', 'listings_limit_exceeded'],
      async handler({ params, body, principal, req, res }) {
        const { listings } = await upstream.call('setListingsActive', {
          workspaceId: principal.workspaceId,
          listingIds: [params.id],
          active: body.active,
          expectedVersion: expectedVersion(req),
          idempotencyKey: idempotencyKeyOf(req),
        });
        // The listing as the write left it (a dry run's is never stored); a replayed answer has none: read it.
        const after = listings.length === 1 ? listings[0]! : await current(principal.workspaceId, params.id);
        return ok(withETag(res, after.version, { data: toListingRow(after) }));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/listings/:id',
      operationId: 'deleteListing',
      summary: 'Delete a listing',
      description: 'Works on inactive listings. The listing stops counting toward the plan limit.',
      tags: ['Listings'],
      auth: 'api_key',
      params: listingParams,
      responses: { 200: z.object({ data: deletedSchema }) },
      errors: ['not_found'],
      async handler({ params, principal }) {
        const { listing } = await upstream.call('deleteListing', { workspaceId: principal.workspaceId, id: params.id });
        return ok({ data: { id: listing?.id ?? params.id, deleted: true as const } });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/listings/status',
      operationId: 'setListingsStatus',
      summary: 'Activate or deactivate several listings',
      description:
        'All or nothing: an unknown id answers 404 and nothing changes; activation past the plan limit answers 402 listings_limit_exceeded and nothing changes. Works on inactive listings.',
      tags: ['Listings'],
      auth: 'api_key',
      body: statusBatchBody,
      responses: { 200: statusBatchResultSchema },
      errors: ['not_found', 'listings_limit_exceeded'],
      async handler({ body, principal, req }) {
        const res = await upstream.call('setListingsActive', {
          workspaceId: principal.workspaceId,
          listingIds: body.listingIds,
          active: body.active,
          expectedVersion: 0,
          idempotencyKey: idempotencyKeyOf(req),
        });
        return ok({ active: res.active, updated: res.updated, unchanged: res.unchanged });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/listings/:id/calendar',
      operationId: 'getListingCalendar',
      summary: 'Availability and nightly prices',
      description:
        `One entry per day from \`from\` to \`to\` (inclusive, at most ${MAX_CALENDAR_RANGE_DAYS} days). ` +
        'Days never written are available at the listing’s default nightly price. A night held by a PENDING or CONFIRMED reservation (owner blocks included) is `available: false` with its `reservationId`; a closed night is `available: false` with `reservationId: null`.',
      tags: ['Availability'],
      auth: 'api_key',
      params: listingParams,
      query: calendarQuery,
      responses: { 200: z.object({ data: calendarSchema }) },
      errors: ['not_found', 'listing_inactive'],
      async handler({ params, query, principal }) {
        const res = await upstream.call('getCalendar', {
          workspaceId: principal.workspaceId,
          listingId: params.id,
          from: query.from,
          to: query.to,
          calendarOnly: false,
        });
        return ok({ data: toApiCalendar(res) });
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/availability/batch',
      operationId: 'updateAvailability',
      summary: 'Update availability and prices of several listings',
      description:
        'All or nothing. If any named listing is inactive, nothing is written and 403 listing_inactive names every inactive one; an unknown listing answers 404 and nothing is written.',
      tags: ['Availability'],
      auth: 'api_key',
      body: availabilityBatchBody,
      responses: { 200: z.object({ data: availabilityResultSchema }) },
      errors: ['not_found', 'listing_inactive'],
      async handler({ body, principal, req }) {
        const res = await upstream.call('updateAvailability', {
          workspaceId: principal.workspaceId,
          updates: body.updates,
          idempotencyKey: idempotencyKeyOf(req),
        });
        return ok({ data: toApiAvailabilityResult(res) });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/listings/:id/content',
      operationId: 'getListingContent',
      summary: 'Content sections of a listing',
      tags: ['Content'],
      auth: 'api_key',
      description: 'Carries `ETag` once content was stored, for `If-Match` on PUT.',
      params: listingParams,
      versioned: true,
      responses: { 200: z.object({ data: contentResponseSchema }) },
      errors: ['not_found', 'listing_inactive'],
      async handler({ params, principal, res: http }) {
        const res = await upstream.call('getContent', { workspaceId: principal.workspaceId, listingId: params.id });
        const data = toApiContent(res);
        return ok(res.version ? withETag(http, res.version, { data }) : { data });
      },
    }),
    defineRoute({
      method: 'put',
      path: '/v1/listings/:id/content',
      operationId: 'putListingContent',
      summary: 'Write content sections',
      description:
        'On a PMS listing the sections are relayed to the PMS. When the PMS can store none of them: 422 pms_write_unsupported and nothing is stored. When it can store some: 200, the others listed in `deferred` and `pms.errors`. Sections not sent stay as they are. With `If-Match` (the `ETag` of GET), content changed since is 412 precondition_failed: nothing is sent to the PMS or stored.',
      tags: ['Content'],
      auth: 'api_key',
      params: listingParams,
      body: contentBody,
      versioned: true,
      responses: { 200: z.object({ data: contentWriteResultSchema }) },
      errors: ['not_found', 'listing_inactive', 'pms_write_unsupported', 'pms_unavailable'],
      async handler({ params, body, principal, req, res: http }) {
        const sections = Object.entries(body.sections).map(([name, value]) => ({ name, valueJson: JSON.stringify(value) }));
        const res = await upstream.call('putContent', {
          workspaceId: principal.workspaceId,
          listingId: params.id,
          sections,
          expectedVersion: expectedVersion(req),
        });
        http.setHeader('ETag', etagOf(res.version));
        return ok({ data: toApiContentWriteResult(res) });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/listings/:id/photos',
      operationId: 'listListingPhotos',
      summary: 'Photos of a listing',
      tags: ['Content'],
      auth: 'api_key',
      params: listingParams,
      responses: { 200: z.object({ data: z.array(photoSchema) }) },
      errors: ['not_found', 'listing_inactive'],
      async handler({ params, principal }) {
        const res = await upstream.call('listPhotos', { workspaceId: principal.workspaceId, listingId: params.id });
        return ok({ data: res.photos.map(toApiPhoto) });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/listings/:id/photos',
      operationId: 'addListingPhoto',
      summary: 'Add a photo',
      description: `Appends a photo (https URL) at the end; at most ${MAX_PHOTOS} photos per listing.`,
      tags: ['Content'],
      auth: 'api_key',
      params: listingParams,
      body: addPhotoBody,
      responses: { 201: z.object({ data: photoSchema }) },
      errors: ['not_found', 'listing_inactive'],
      async handler({ params, body, principal, req }) {
        const res = await upstream.call('addPhoto', {
          workspaceId: principal.workspaceId,
          listingId: params.id,
          url: body.url,
          caption: body.caption,
          idempotencyKey: idempotencyKeyOf(req),
        });
        return { status: 201 as const, body: { data: toApiPhoto(res.photo!) } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/listings/:id/photos/:photoId',
      operationId: 'removeListingPhoto',
      summary: 'Remove a photo',
      tags: ['Content'],
      auth: 'api_key',
      params: photoParams,
      responses: { 200: z.object({ data: deletedSchema }) },
      errors: ['not_found', 'listing_inactive'],
      async handler({ params, principal }) {
        const res = await upstream.call('removePhoto', { workspaceId: principal.workspaceId, listingId: params.id, photoId: params.photoId });
        return ok({ data: { id: res.photoId, deleted: true as const } });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/listings/:id/publish',
      operationId: 'publishListing',
      summary: 'Publish a listing to its channels',
      description: 'Pushes the current content, photos and calendar to every mapped channel. The listing must be active and mapped to at least one channel.',
      tags: ['Listings'],
      auth: 'api_key',
      params: listingParams,
      responses: { 200: z.object({ data: publishResultSchema }) },
      errors: ['not_found', 'listing_inactive'],
      async handler({ params, principal, req }) {
        const res = await upstream.call('publishListing', { workspaceId: principal.workspaceId, listingId: params.id, idempotencyKey: idempotencyKeyOf(req) });
        return ok({ data: toApiPublishResult(res) });
      },
    }),
  ];
}
