// Operator API: create a listing that no PMS manages (a direct-booking property, a migration,
// test data for an integrator's sandbox). Listings managed in a PMS arrive with its connection
// (admin-connections.ts), never through this call.
import { z } from 'zod';
import { listing } from '@vrp/contracts';
import { dataWorkspaceId } from '@vrp/platform/sandbox';
import { type Upstream } from '@vrp/platform/grpc';
import { getWorkspace, type WorkspaceAdminDeps } from '../../use-cases/workspace-admin';
import { createListingBody, idParam, listingSchema, toApiListing } from '@vrp/api-model';
import { created, defineRoute, type Route } from '../route';

const workspaceIdParams = z.strictObject({ id: idParam('Workspace id (ws_...).') });

export function adminListingRoutes(upstream: Upstream<listing.ListingServiceClient>, admin: WorkspaceAdminDeps): Route[] {
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
        await getWorkspace(admin, params.id);
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
