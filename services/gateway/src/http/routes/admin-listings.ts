// Operator API: create a listing that no PMS manages (a direct-booking property, a migration,
// test data for an integrator's sandbox). Listings managed in a PMS arrive with its connection
// (admin-connections.ts), never through this call.
import { z } from 'zod';
import { listing } from '@vrp/contracts';
import { dataWorkspaceId, type Upstream } from '@vrp/platform';
import type { WorkspaceAdmin } from '../../workspace-admin';
import { toApiListing } from '../mappers';
import { created, defineRoute, type Route } from '../route';
import { idParam, listingSchema } from '../schemas';

const workspaceIdParams = z.strictObject({ id: idParam('Workspace id (ws_...).') });

export const createListingBody = z.strictObject({
  mode: z.enum(['test', 'live']).describe('`live` creates it among the data live keys see, `test` in the test-mode sandbox of test keys.'),
  name: z.string().trim().min(1, 'must not be empty').max(200),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as EUR').default('EUR'),
  defaultNightlyPrice: z.number().finite().positive().max(1_000_000).default(100).describe('Nightly price where the calendar sets none.'),
  cleaningFee: z.number().finite().min(0).max(1_000_000).default(0),
  taxRate: z.number().finite().min(0).max(1).default(0).describe('A fraction: 0.1 is 10 %.'),
  maxGuests: z.number().int().min(1).max(100).default(2),
  channels: z
    .array(z.strictObject({ channel: z.string().trim().min(1).max(50).describe('e.g. CHANNEL_A'), externalId: z.string().trim().min(1).max(200).describe('The listing’s id on that channel.') }))
    .max(20)
    .default([])
    .describe('Channel listings mapped to it: their ids name the listing everywhere a listing id is accepted.'),
  active: z.boolean().default(true).describe('Active listings count toward the plan (402 listings_limit_exceeded when it is full); false creates it inactive.'),
});

export function adminListingRoutes(upstream: Upstream<listing.ListingServiceClient>, admin: WorkspaceAdmin): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/admin/v1/workspaces/:id/listings',
      operationId: 'adminCreateListing',
      summary: 'Create a listing no PMS manages',
      description:
        'Creates a listing in the workspace’s live data or its test-mode sandbox. Listings managed in a PMS are imported by connecting the PMS account instead. A channel id already mapped to another listing of the workspace answers 409 conflict.',
      tags: ['Admin'],
      auth: 'admin',
      params: workspaceIdParams,
      body: createListingBody,
      responses: { 201: z.object({ data: listingSchema }) },
      errors: ['not_found', 'listings_limit_exceeded', 'conflict'],
      async handler({ params, body }) {
        await admin.getWorkspace(params.id);
        const { mode, active, ...fields } = body;
        const res = await upstream.call('createListing', {
          workspaceId: dataWorkspaceId(params.id, mode),
          listing: listing.Listing.create(fields),
          inactive: !active,
        });
        if (!res.listing) throw new Error('listing service answered without a listing');
        return created({ data: toApiListing(res.listing) });
      },
    }),
  ];
}
