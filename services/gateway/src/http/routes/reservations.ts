// Reservations (spec 4.1): relayed to the reservation service, which decides not_found,
// listing_inactive and pms_write_unsupported. The gateway validates, calls and renders.
import { z } from 'zod';
import { toApiQuote, toApiReservation } from '@vrp/api-model';
import { reservation as pb } from '@vrp/contracts';
import type { Upstream } from '@vrp/platform';
import { IDEMPOTENCY_HEADER } from '../middleware/idempotency';
import { toPagination } from '../mappers';
import { created, defineRoute, ok, type Route } from '../route';
import { idParam } from '../schemas';
import {
  createReservationBody,
  listReservationsQuery,
  quoteBody,
  quoteSchema,
  reservationPageSchema,
  reservationSchema,
  updateReservationBody,
} from '../schemas-reservations';

const reservationParams = z.strictObject({ id: idParam('A reservation id.') });
const one = z.object({ data: reservationSchema });

/**
 * The shared rendering (api-model) typed as this route's schema: status and source are plain
 * strings on the wire, enums in the reference; responses are checked against it in tests.
 */
const render = (r: pb.Reservation) => toApiReservation(r) as z.input<typeof reservationSchema>;

function reservationOf(res: { reservation?: pb.Reservation | undefined }): z.input<typeof reservationSchema> {
  // A reply without a reservation is an upstream contract breach, not a 404 of the caller's.
  if (!res.reservation) throw new Error('reservation service answered without a reservation');
  return render(res.reservation);
}

export function reservationRoutes(upstream: Upstream<pb.ReservationServiceClient>): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/reservations',
      operationId: 'listReservations',
      summary: 'List reservations',
      description:
        'In check-in order, ties by id. Reservations on inactive listings are left out; filtering by an inactive listing answers 403 listing_inactive. Unknown parameters are refused (400).',
      tags: ['Reservations'],
      auth: 'api_key',
      query: listReservationsQuery,
      responses: { 200: reservationPageSchema },
      errors: ['listing_inactive'],
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
      description: '404 when the id is not in the workspace (decided first); 403 listing_inactive when its listing is inactive.',
      tags: ['Reservations'],
      auth: 'api_key',
      params: reservationParams,
      responses: { 200: one },
      errors: ['not_found', 'listing_inactive'],
      async handler({ params, principal }) {
        return ok({ data: (reservationOf(await upstream.call('getReservation', { workspaceId: principal.workspaceId, id: params.id }))) });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/reservations',
      operationId: 'createReservation',
      summary: 'Create a reservation',
      description:
        'Answers the reservation with status CONFIRMED and a confirmation code. Priced from the listing’s calendar unless `financials.totalPrice` is given. On a PMS listing the reservation is created in the PMS first; writes the PMS cannot perform answer 422 pms_write_unsupported and nothing is sent; a PMS that is down answers 503 and nothing is stored. Honours Idempotency-Key.',
      tags: ['Reservations'],
      auth: 'api_key',
      body: createReservationBody,
      idempotent: true,
      responses: { 201: one },
      errors: ['not_found', 'listing_inactive', 'pms_write_unsupported', 'service_unavailable', 'idempotency_conflict'],
      async handler({ body, principal, req }) {
        const res = await upstream.call('createReservation', {
          workspaceId: principal.workspaceId,
          idempotencyKey: req.get(IDEMPOTENCY_HEADER) ?? '',
          reservation: pb.NewReservation.create({
            propertyId: body.propertyId,
            checkIn: body.checkIn,
            checkOut: body.checkOut,
            primaryGuest: { firstName: body.primaryGuest.firstName, lastName: body.primaryGuest.lastName ?? '', email: body.primaryGuest.email ?? '', phone: body.primaryGuest.phone ?? '' },
            ...(body.occupancy ? { occupancy: body.occupancy } : {}),
            ...(body.financials?.totalPrice !== undefined ? { totalPrice: body.financials.totalPrice } : {}),
            currency: body.financials?.currency ?? '',
            source: body.source ?? '',
            platform: body.platform ?? '',
            unitId: body.unitId ?? '',
            tentativeHold: body.tentativeHold ?? false,
            groupId: body.groupId ?? '',
            roomTypeId: body.roomTypeId ?? '',
            ...(body.notes ? { notes: { host: body.notes.host ?? '', guest: body.notes.guest ?? '' } } : {}),
            customFields: body.customFields ?? {},
          }),
        });
        return created({ data: (reservationOf(res)) });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/reservations/quote',
      operationId: 'quoteReservation',
      summary: 'Price a stay',
      description: 'Nights x nightly price + cleaning fee + taxes, from the listing’s calendar. Refused with 422 pms_write_unsupported on PMS-C, PMS-D and PMS-E (no quote API).',
      tags: ['Reservations'],
      auth: 'api_key',
      body: quoteBody,
      idempotent: true,
      responses: { 200: z.object({ data: quoteSchema }) },
      errors: ['not_found', 'listing_inactive', 'pms_write_unsupported'],
      async handler({ body, principal }) {
        const res = await upstream.call('quoteReservation', { workspaceId: principal.workspaceId, propertyId: body.propertyId, checkIn: body.checkIn, checkOut: body.checkOut, occupancy: body.occupancy });
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
        'Status (PENDING, CONFIRMED, CANCELLED; POST_STAY cannot be set), dates, check-in/out times, listing, notes, custom fields. On PMS stays, changes the PMS cannot perform answer 422 pms_write_unsupported (dates on PMS-B, cancel on PMS-A, times and moves on every PMS) and nothing is sent.',
      tags: ['Reservations'],
      auth: 'api_key',
      params: reservationParams,
      body: updateReservationBody,
      responses: { 200: one },
      errors: ['not_found', 'listing_inactive', 'pms_write_unsupported', 'service_unavailable', 'conflict'],
      async handler({ params, body, principal, req }) {
        const res = await upstream.call(
          'updateReservation',
          pb.UpdateReservationRequest.create({
            workspaceId: principal.workspaceId,
            id: params.id,
            idempotencyKey: req.get(IDEMPOTENCY_HEADER) ?? '',
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
        return ok({ data: (reservationOf(res)) });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/reservations/:id/cancel',
      operationId: 'cancelReservation',
      summary: 'Cancel a reservation',
      description: 'Cancelling a cancelled reservation changes nothing. Refused with 422 pms_write_unsupported when the owning PMS cannot cancel (PMS-A); nothing is sent.',
      tags: ['Reservations'],
      auth: 'api_key',
      params: reservationParams,
      idempotent: true,
      responses: { 200: one },
      errors: ['not_found', 'listing_inactive', 'pms_write_unsupported', 'service_unavailable'],
      async handler({ params, principal, req }) {
        const res = await upstream.call('cancelReservation', { workspaceId: principal.workspaceId, id: params.id, idempotencyKey: req.get(IDEMPOTENCY_HEADER) ?? '', expectedVersion: 0 });
        return ok({ data: (reservationOf(res)) });
      },
    }),
  ];
}
