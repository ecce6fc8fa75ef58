// Reservations (docs/reservations.md): relayed to the reservation service, which decides not_found,
// listing_inactive and pms_write_unsupported. The gateway validates, calls and renders.
import type { Response } from 'express';
import { z } from 'zod';
import {
  createReservationBody,
  idParam,
  listReservationsQuery,
  quoteBody,
  quoteSchema,
  reservationPageSchema,
  reservationSchema,
  toApiQuote,
  toApiReservation,
  toNewReservation,
  updateReservationBody,
} from '@vrp/api-model';
import { refusedOn } from '@vrp/pms-matrix';
import { reservation as pb } from '@vrp/contracts';
import type { Upstream } from '@vrp/platform/grpc';
import { idempotencyKeyOf } from '../middleware/idempotency';
import { toPagination } from '../mappers';
import { expectedVersion, withETag } from '../versioning';
import { created, defineRoute, ok, type Route } from '../route';

const reservationParams = z.strictObject({ id: idParam('A reservation id.') });
const one = z.object({ data: reservationSchema });

const render = toApiReservation;

/** `{data}` of a single-reservation reply, with its version as the `ETag` header. */
function oneOf(res: { reservation?: pb.Reservation | undefined }, http: Response): z.input<typeof one> {
  // A reply without a reservation is an upstream contract breach, not a 404 of the caller's.
  if (!res.reservation) throw new Error('reservation service answered without a reservation');
  return withETag(http, res.reservation.version, { data: render(res.reservation) });
}

export function reservationRoutes(upstream: Upstream<pb.ReservationServiceClient>): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/reservations',
      operationId: 'listReservations',
      summary: 'List reservations',
      description:
        'In check-in order, ties by id. Reservations on inactive listings are left out; filtering by a listing the workspace does not have answers 404 not_found, by an inactive one 403 listing_inactive. Unknown parameters are refused (400).',
      tags: ['Reservations'],
      auth: 'api_key',
      query: listReservationsQuery,
      responses: { 200: reservationPageSchema },
      errors: ['not_found', 'listing_inactive'],
      async handler({ query, principal }) {
        const res = await upstream.call(
          'listReservations',
          pb.ListReservationsRequest.create({
            workspaceId: principal.workspaceId,
            page: { limit: query.limit, offset: query.offset },
            status: query.status ?? '',
            propertyId: query.property_id ?? '',
            checkInAfter: query.check_in_after ?? '',
            checkInBefore: query.check_in_before ?? '',
            source: query.source ?? '',
            ...(query.updated_since ? { updatedSince: new Date(query.updated_since) } : {}),
          }),
        );
        return ok({ data: res.reservations.map(render), pagination: toPagination(res.page, query, res.reservations.length) });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/reservations/:id',
      operationId: 'getReservation',
      summary: 'Get a reservation',
      description:
        '404 when the id is not in the workspace (decided first); 403 listing_inactive when its listing is inactive. The `ETag` header carries the version, for `If-Match`.',
      tags: ['Reservations'],
      auth: 'api_key',
      params: reservationParams,
      versioned: true,
      responses: { 200: one },
      errors: ['not_found', 'listing_inactive'],
      async handler({ params, principal, res }) {
        return ok(oneOf(await upstream.call('getReservation', { workspaceId: principal.workspaceId, id: params.id }), res));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/reservations',
      operationId: 'createReservation',
      summary: 'Create a reservation',
      description:
        'Answers the reservation with status CONFIRMED and a confirmation code. Priced from the listing’s calendar unless `financials.totalPrice` is given. The stay holds its nights `[checkIn, checkOut)` on the listing (owner blocks too): a night already booked by a PENDING or CONFIRMED reservation, or closed on the calendar, answers 409 dates_unavailable with `error.conflicts` naming each night, and nothing is written — of concurrent creates for the same nights exactly one succeeds. On a PMS listing the reservation is created in the PMS first; writes the PMS cannot perform answer 422 pms_write_unsupported and nothing is sent; a PMS that fails or refuses answers 502 pms_unavailable with its reason (503 service_unavailable with Retry-After once its breaker is open), and nothing is stored. Honours Idempotency-Key (the key is stored with the reservation, so a retry never creates a second one).',
      tags: ['Reservations'],
      auth: 'api_key',
      body: createReservationBody,
      versioned: true,
      responses: { 201: one },
      errors: ['not_found', 'listing_inactive', 'pms_write_unsupported', 'dates_unavailable', 'pms_unavailable', 'service_unavailable'],
      async handler({ body, principal, req, res: http }) {
        const res = await upstream.call('createReservation', {
          workspaceId: principal.workspaceId,
          idempotencyKey: idempotencyKeyOf(req),
          reservation: toNewReservation(body),
        });
        return created(oneOf(res, http));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/reservations/quote',
      operationId: 'quoteReservation',
      summary: 'Price a stay',
      description:
        'Nights x nightly price + cleaning fee + taxes, from the listing’s calendar. A stay with a booked or closed night is refused as a create would be: 409 dates_unavailable naming each night. ' +
        `Refused with 422 pms_write_unsupported on ${refusedOn('reservation.quote')} (no quote API).`,
      tags: ['Reservations'],
      auth: 'api_key',
      body: quoteBody,
      responses: { 200: z.object({ data: quoteSchema }) },
      errors: ['not_found', 'listing_inactive', 'pms_write_unsupported', 'dates_unavailable'],
      async handler({ body, principal }) {
        const res = await upstream.call('quoteReservation', {
          workspaceId: principal.workspaceId,
          propertyId: body.propertyId,
          checkIn: body.checkIn,
          checkOut: body.checkOut,
          occupancy: body.occupancy,
        });
        if (!res.quote) throw new Error('reservation service answered without a quote');
        return ok({ data: toApiQuote(res.quote) });
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/reservations/:id',
      operationId: 'updateReservation',
      summary: 'Change a reservation',
      description:
        'Status (PENDING, CONFIRMED, CANCELLED; POST_STAY cannot be set), dates, check-in/out times, listing, notes, custom fields. Only the fields sent are written, against the reservation as it is when the change commits, so concurrent PATCHes of different fields all survive; with `If-Match` a reservation changed since is 412 precondition_failed and nothing changes. New dates, a move, or un-cancelling onto booked or closed nights is 409 dates_unavailable; cancelling frees the nights. On PMS stays, changes the PMS cannot perform answer 422 pms_write_unsupported ' +
        `(dates on ${refusedOn('reservation.change_dates')}, cancel on ${refusedOn('reservation.cancel')}, times on ${refusedOn('reservation.change_times')}, moves on ${refusedOn('reservation.move_listing')}) and nothing is sent.`,
      tags: ['Reservations'],
      auth: 'api_key',
      params: reservationParams,
      body: updateReservationBody,
      versioned: true,
      responses: { 200: one },
      errors: ['not_found', 'listing_inactive', 'pms_write_unsupported', 'dates_unavailable', 'pms_unavailable', 'service_unavailable', 'conflict'],
      async handler({ params, body, principal, req, res: http }) {
        const res = await upstream.call(
          'updateReservation',
          pb.UpdateReservationRequest.create({
            workspaceId: principal.workspaceId,
            id: params.id,
            idempotencyKey: idempotencyKeyOf(req),
            expectedVersion: expectedVersion(req),
            ...(body.status !== undefined ? { status: body.status } : {}),
            ...(body.checkIn !== undefined ? { checkIn: body.checkIn } : {}),
            ...(body.checkOut !== undefined ? { checkOut: body.checkOut } : {}),
            ...(body.propertyId !== undefined ? { propertyId: body.propertyId } : {}),
            ...(body.checkInTime !== undefined ? { checkInTime: body.checkInTime } : {}),
            ...(body.checkOutTime !== undefined ? { checkOutTime: body.checkOutTime } : {}),
            ...(body.notes ? { notes: body.notes } : {}),
            customFields: body.customFields ?? {},
          }),
        );
        return ok(oneOf(res, http));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/reservations/:id/cancel',
      operationId: 'cancelReservation',
      summary: 'Cancel a reservation',
      description:
        'Frees the nights it held. Cancelling a cancelled reservation changes nothing. Accepts `If-Match`. ' +
        `Refused with 422 pms_write_unsupported when the owning PMS cannot cancel (${refusedOn('reservation.cancel')}); nothing is sent.`,
      tags: ['Reservations'],
      auth: 'api_key',
      params: reservationParams,
      versioned: true,
      responses: { 200: one },
      errors: ['not_found', 'listing_inactive', 'pms_write_unsupported', 'pms_unavailable', 'service_unavailable'],
      async handler({ params, principal, req, res: http }) {
        const res = await upstream.call('cancelReservation', {
          workspaceId: principal.workspaceId,
          id: params.id,
          idempotencyKey: idempotencyKeyOf(req),
          expectedVersion: expectedVersion(req),
        });
        return ok(oneOf(res, http));
      },
    }),
  ];
}
