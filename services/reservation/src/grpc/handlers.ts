// gRPC handlers of ReservationService: validate the request shape, run the use case, map the result.
import { reservation as pb } from '@vrp/contracts';
import { pageInfo, pageWindow, requireId, requireWorkspace } from '@vrp/platform/paging';
import { requestKey } from '@vrp/platform/applied-requests';
import { service, type ServiceRegistration } from '@vrp/platform/grpc';
import type { Reservations } from '../use-cases/reservations';
import { newReservationFromProto, patchFromProto, queryInputFromProto, toProtoQuote, toProtoReservation } from './mappers';

export function reservationHandlers(deps: { reservations: Reservations }): ServiceRegistration {
  const { reservations } = deps;

  return service(pb.ReservationServiceService, {
    async listReservations(req) {
      requireWorkspace(req.workspaceId);
      const window = pageWindow(req.page);
      const { items, total } = await reservations.list(req.workspaceId, queryInputFromProto(req), window);
      const now = reservations.now();
      return { reservations: items.map((r) => toProtoReservation(r, now)), page: pageInfo(window, items.length, total) };
    },

    async getReservation(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { reservation: toProtoReservation(await reservations.get(req.workspaceId, req.id), reservations.now()) };
    },

    async createReservation(req) {
      requireWorkspace(req.workspaceId);
      return {
        reservation: toProtoReservation(
          await reservations.create(req.workspaceId, newReservationFromProto(req.reservation), requestKey('reservation.createReservation', req)),
          reservations.now(),
          true,
        ),
      };
    },

    async updateReservation(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return {
        reservation: toProtoReservation(
          await reservations.update(req.workspaceId, req.id, patchFromProto(req), requestKey('reservation.updateReservation', req), req.expectedVersion),
          reservations.now(),
        ),
      };
    },

    async cancelReservation(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return {
        reservation: toProtoReservation(
          await reservations.cancel(req.workspaceId, req.id, requestKey('reservation.cancelReservation', req), req.expectedVersion),
          reservations.now(),
        ),
      };
    },

    async quoteReservation(req) {
      requireWorkspace(req.workspaceId);
      return { quote: toProtoQuote(await reservations.quote(req.workspaceId, req.propertyId, req.checkIn, req.checkOut)) };
    },

    async listBookedNights(req) {
      requireWorkspace(req.workspaceId);
      const nights = await reservations.bookedNights(req.workspaceId, req.listingId, req.from, req.to);
      return { nights: nights.map((n) => ({ date: n.night, reservationId: n.reservationId })) };
    },
  });
}
