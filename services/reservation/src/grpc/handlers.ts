// gRPC handlers of ReservationService: check the request shape, map the message to the domain
// input, call the use case, map the result.
import { reservation as pb } from '@vrp/contracts';
import { pageInfo, pageWindow, requireId, requireWorkspace } from '@vrp/platform/paging';
import { requestKey } from '@vrp/platform/applied-requests';
import { service, type ServiceRegistration } from '@vrp/platform/grpc';
import { validationFailed } from '@vrp/platform/errors';
import { toProtoReservation } from '../publishers/reservation-message';
import { cancelReservation, changeReservation } from '../use-cases/change';
import { createReservation } from '../use-cases/create';
import type { ReservationDeps } from '../use-cases/deps';
import { getReservation, listBookedNights, listReservations, quoteStay } from '../use-cases/queries';
import { getWorkspaceSettings, setWorkspaceSettings } from '../use-cases/settings';
import { newReservationFromProto, patchFromProto, queryInputFromProto, toProtoQuote } from './mappers';

export function reservationHandlers(deps: ReservationDeps): ServiceRegistration {
  return service(pb.ReservationServiceService, {
    async listReservations(req) {
      requireWorkspace(req.workspaceId);
      const window = pageWindow(req.page);
      const { items, total } = await listReservations(deps, req.workspaceId, queryInputFromProto(req), window);
      const now = deps.clock();
      return { reservations: items.map((r) => toProtoReservation(r, now)), page: pageInfo(window, items.length, total) };
    },

    async getReservation(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { reservation: toProtoReservation(await getReservation(deps, req.workspaceId, req.id), deps.clock()) };
    },

    async createReservation(req) {
      requireWorkspace(req.workspaceId);
      const stay = newReservationFromProto(req.reservation);
      const created = await createReservation(deps, { workspaceId: req.workspaceId, stay, key: requestKey('reservation.createReservation', req) });
      return { reservation: toProtoReservation(created, deps.clock(), true) };
    },

    async updateReservation(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      const changed = await changeReservation(deps, {
        workspaceId: req.workspaceId,
        id: req.id,
        patch: patchFromProto(req),
        key: requestKey('reservation.updateReservation', req),
        expectedVersion: req.expectedVersion,
      });
      return { reservation: toProtoReservation(changed, deps.clock()) };
    },

    async cancelReservation(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      const cancelled = await cancelReservation(deps, {
        workspaceId: req.workspaceId,
        id: req.id,
        key: requestKey('reservation.cancelReservation', req),
        expectedVersion: req.expectedVersion,
      });
      return { reservation: toProtoReservation(cancelled, deps.clock()) };
    },

    async quoteReservation(req) {
      requireWorkspace(req.workspaceId);
      const quote = await quoteStay(deps, { workspaceId: req.workspaceId, propertyId: req.propertyId, checkIn: req.checkIn, checkOut: req.checkOut });
      return { quote: toProtoQuote(quote) };
    },

    async listBookedNights(req) {
      requireWorkspace(req.workspaceId);
      const nights = await listBookedNights(deps, { workspaceId: req.workspaceId, listingId: req.listingId, from: req.from, to: req.to });
      return { nights: nights.map((n) => ({ date: n.night, reservationId: n.reservationId })) };
    },

    async getWorkspaceSettings(req) {
      requireWorkspace(req.workspaceId);
      return { settingsJson: JSON.stringify(await getWorkspaceSettings(deps, req.workspaceId)) };
    },

    async setWorkspaceSettings(req) {
      requireWorkspace(req.workspaceId);
      return { settingsJson: JSON.stringify(await setWorkspaceSettings(deps, req.workspaceId, settingsFromJson(req.settingsJson))) };
    },
  });
}

/** The settings object a request carries as JSON ('' is no setting at all). */
function settingsFromJson(json: string): unknown {
  if (!json) return {};
  try {
    return JSON.parse(json) as unknown;
  } catch {
    throw validationFailed({ settings: 'must be a JSON object' });
  }
}
