// Guests (docs/guests.md): relayed to the guest service, which decides not_found before
// listing_inactive (a guest whose every reservation is on an inactive listing) and refuses
// guest writes the guest's PMS cannot perform. The gateway validates, calls and renders.
import type { Response } from 'express';
import { z } from 'zod';
import { createGuestBody, DEFAULT_GUEST_LANGUAGE, guestPageSchema, guestSchema, idParam, listGuestsQuery, toApiGuest, updateGuestBody } from '@vrp/api-model';
import { refusedOn } from '@vrp/pms-matrix';
import { guest as pb } from '@vrp/contracts';
import type { Upstream } from '@vrp/platform';
import { toPagination } from '../mappers';
import { idempotencyKeyOf } from '../middleware/idempotency';
import { expectedVersion, withETag } from '../versioning';
import { created, defineRoute, ok, type Route } from '../route';

const guestParams = z.strictObject({ id: idParam('A guest id.') });
const one = z.object({ data: guestSchema });

/** `{data}` of a single-guest reply, with its version as the `ETag` header. */
function oneGuest(res: { guest?: pb.Guest | undefined }, http: Response): z.input<typeof one> {
  // A reply without a guest is an upstream contract breach, not a 404 of the caller's.
  if (!res.guest) throw new Error('guest service answered without a guest');
  return withETag(http, res.guest.version, { data: toApiGuest(res.guest) });
}

export function guestRoutes(upstream: Upstream<pb.GuestServiceClient>): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/guests',
      operationId: 'listGuests',
      summary: 'List guests',
      description:
        'In name order (accents and case folded), ties by id. A guest who has reservations, all on inactive listings, is left out; a guest without reservations is listed.',
      tags: ['Guests'],
      auth: 'api_key',
      query: listGuestsQuery,
      responses: { 200: guestPageSchema },
      async handler({ query, principal }) {
        const res = await upstream.call(
          'listGuests',
          pb.ListGuestsRequest.create({ workspaceId: principal.workspaceId, search: query.search ?? '', page: { limit: query.limit, offset: query.offset } }),
        );
        return ok({ data: res.guests.map(toApiGuest), pagination: toPagination(res.page, query, res.guests.length) });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/guests/:id',
      operationId: 'getGuest',
      summary: 'Get a guest',
      description:
        '403 listing_inactive (naming the listings) when every reservation of the guest is on an inactive listing. The `ETag` header carries the version, for `If-Match`.',
      tags: ['Guests'],
      auth: 'api_key',
      params: guestParams,
      versioned: true,
      responses: { 200: one },
      errors: ['not_found', 'listing_inactive'],
      async handler({ params, principal, res }) {
        return ok(oneGuest(await upstream.call('getGuest', { workspaceId: principal.workspaceId, id: params.id }), res));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/guests',
      operationId: 'createGuest',
      summary: 'Create a guest',
      description: `Creates a guest profile; \`language\` defaults to \`${DEFAULT_GUEST_LANGUAGE}\`. With \`provider\`, the guest is created in that PMS first; ${refusedOn('guest.write')} cannot write guests (422 pms_write_unsupported, nothing sent). An email or phone given here is matched by later reservations. Send \`Idempotency-Key\` to retry safely: the key is stored with the profile, so a retry never creates a second one.`,
      tags: ['Guests'],
      auth: 'api_key',
      body: createGuestBody,
      versioned: true,
      responses: { 201: one },
      errors: ['pms_write_unsupported', 'pms_unavailable'],
      async handler({ body, principal, req, res: http }) {
        const res = await upstream.call(
          'createGuest',
          pb.CreateGuestRequest.create({
            workspaceId: principal.workspaceId,
            firstName: body.firstName,
            lastName: body.lastName ?? '',
            language: body.language ?? '',
            provider: body.provider ?? '',
            email: body.email ?? '',
            phone: body.phone ?? '',
            idempotencyKey: idempotencyKeyOf(req),
          }),
        );
        return created(oneGuest(res, http));
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/guests/:id',
      operationId: 'updateGuest',
      summary: 'Update a guest',
      description:
        'Changes firstName, lastName or language. Only the fields sent are written, against the profile as it is when the change commits, so concurrent PATCHes of different fields all survive; with `If-Match` a profile changed since is 412 precondition_failed and nothing changes. A guest linked to a PMS is changed in that PMS first, one change at a time per profile; ' +
        `${refusedOn('guest.write')} cannot write guests (422 pms_write_unsupported, nothing sent).`,
      tags: ['Guests'],
      auth: 'api_key',
      params: guestParams,
      body: updateGuestBody,
      versioned: true,
      responses: { 200: one },
      errors: ['not_found', 'listing_inactive', 'pms_write_unsupported', 'pms_unavailable', 'conflict'],
      async handler({ params, body, principal, req, res: http }) {
        const res = await upstream.call(
          'updateGuest',
          pb.UpdateGuestRequest.create({
            workspaceId: principal.workspaceId,
            id: params.id,
            ...(body.firstName !== undefined ? { firstName: body.firstName } : {}),
            ...(body.lastName !== undefined ? { lastName: body.lastName } : {}),
            ...(body.language !== undefined ? { language: body.language } : {}),
            expectedVersion: expectedVersion(req),
            idempotencyKey: idempotencyKeyOf(req),
          }),
        );
        return ok(oneGuest(res, http));
      },
    }),
  ];
}
