// Listings (also called properties): reads relayed to the listing service. The gateway only
// validates, calls and maps; the listing service decides not_found / listing_inactive.
import { z } from 'zod';
import { listing } from '@vrp/contracts';
import type { Response } from 'express';
import type { ErrorCode } from '@vrp/platform/errors';
import type { Upstream } from '@vrp/platform/grpc';
import type { ApiKeyPrincipal } from '../../domain/api-key-record';
import { toApiListing, toApiListingWithCapabilities, toListingRow, toPagination } from '../mappers';
import { defineRoute, ok, type Route } from '../route';
import { withETag } from '../versioning';
import { idParam, listingPageSchema, listingSchema, listingStatusQuery, listingWithCapabilitiesSchema, pageQuery } from '@vrp/api-model';

export const listListingsQuery = z.strictObject({ status: listingStatusQuery, ...pageQuery });
const listingIdParams = z.strictObject({ id: idParam('A listing id, or a channel id mapped to a listing.') });

const STATUS_FILTERS = {
  active: listing.ListingStatusFilter.LISTING_STATUS_FILTER_ACTIVE,
  inactive: listing.ListingStatusFilter.LISTING_STATUS_FILTER_INACTIVE,
  all: listing.ListingStatusFilter.LISTING_STATUS_FILTER_ALL,
} as const satisfies Record<z.output<typeof listListingsQuery>['status'], listing.ListingStatusFilter>;

export function listingRoutes(upstream: Upstream<listing.ListingServiceClient>): Route[] {
  // One handler behind both names of the collection.
  const listPage = async ({ query, principal }: { query: z.output<typeof listListingsQuery>; principal: ApiKeyPrincipal }) => {
    const res = await upstream.call('listListings', {
      workspaceId: principal.workspaceId,
      status: STATUS_FILTERS[query.status],
      page: { limit: query.limit, offset: query.offset },
    });
    return ok({ data: res.listings.map(toListingRow), pagination: toPagination(res.page, query, res.listings.length) });
  };

  // One handler behind both names of a listing; each name renders it as it documents.
  const getOne = async <B>(principal: ApiKeyPrincipal, id: string, res: Response, render: (found: listing.Listing) => B) => {
    const { listing: found } = await upstream.call('getListing', { workspaceId: principal.workspaceId, id, allowInactive: false });
    // A reply without a listing is an upstream contract breach, not a 404 of the caller's.
    if (!found) throw new Error('listing service answered GetListing without a listing');
    return ok(withETag(res, found.version, { data: render(found) }));
  };
  // What both names declare: one active listing by id, versioned.
  const oneListing = {
    method: 'get' as const,
    auth: 'api_key' as const,
    params: listingIdParams,
    versioned: true,
    errors: ['not_found', 'listing_inactive'] satisfies ErrorCode[],
  };

  const listDescription =
    'Active listings by default; `status=inactive` or `status=all` include inactive ones, whose rows carry only id, name, status and channels.';

  return [
    defineRoute({
      method: 'get',
      path: '/v1/listings',
      operationId: 'listListings',
      summary: 'List listings',
      description: listDescription,
      tags: ['Listings'],
      auth: 'api_key',
      query: listListingsQuery,
      responses: { 200: listingPageSchema },
      handler: listPage,
    }),
    defineRoute({
      method: 'get',
      path: '/v1/properties',
      operationId: 'listProperties',
      summary: 'List properties',
      description: `The same collection as GET /v1/listings. ${listDescription}`,
      tags: ['Properties'],
      auth: 'api_key',
      query: listListingsQuery,
      responses: { 200: listingPageSchema },
      handler: listPage,
    }),
    defineRoute({
      ...oneListing,
      path: '/v1/listings/:id',
      operationId: 'getListing',
      summary: 'Get a listing with its capabilities',
      description:
        'One active listing including `capabilities` (what its PMS supports). An inactive listing answers 403 listing_inactive. `ETag` carries the listing’s version, for `If-Match` on PATCH.',
      tags: ['Listings'],
      responses: { 200: z.object({ data: listingWithCapabilitiesSchema }) },
      handler: ({ params, principal, res }) => getOne(principal, params.id, res, toApiListingWithCapabilities),
    }),
    defineRoute({
      ...oneListing,
      path: '/v1/properties/:id',
      operationId: 'getProperty',
      summary: 'Get a property',
      description: 'One active listing. An inactive listing answers 403 listing_inactive.',
      tags: ['Properties'],
      responses: { 200: z.object({ data: listingSchema }) },
      handler: ({ params, principal, res }) => getOne(principal, params.id, res, toApiListing),
    }),
  ];
}
