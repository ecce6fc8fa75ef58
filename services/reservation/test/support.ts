// Shared by the reservation service's component tests: a sample reservation record and the
// service started over real gRPC on the embedded engines a test passes, with a client.
import { reservation as pb } from '@vrp/contracts';
import { createLogger } from '@vrp/platform/logging';
import { createUpstream, type Upstream } from '@vrp/platform/grpc';
import { DEFAULT_ADDRESSES, type RunningService } from '@vrp/platform/service';
import { startReservationService, type ReservationServiceDeps } from '../src/app';
import { newReservationRecord, type ReservationRecord } from '../src/domain/reservation';

/** The guest, party and price of every sample reservation (a paid stay of two adults). */
export const SAMPLE_GUEST: ReservationRecord['primaryGuest'] = { firstName: 'Ana', lastName: 'Silva', email: 'ana@example.com', language: 'pt', phone: '' };
export const SAMPLE_OCCUPANCY: ReservationRecord['occupancy'] = { adults: 2, children: 0, infants: 0, pets: 0 };
export const SAMPLE_FINANCIALS: ReservationRecord['financials'] = {
  totalPrice: 480,
  currency: 'EUR',
  paymentStatus: 'PAID',
  breakdown: {
    basePrice: 400,
    cleaningFee: 50,
    fees: [{ type: 'SERVICE', amount: 10 }],
    taxes: [{ type: 'VAT', amount: 20, rate: 0.05 }],
    discounts: [],
  },
};

/** A confirmed direct reservation of lst_sea for 2025-07-01..05, booked 2025-05-01; `fields` override. */
export function sampleReservation(fields: Pick<ReservationRecord, 'id' | 'workspaceId' | 'confirmationCode'> & Partial<ReservationRecord>): ReservationRecord {
  return newReservationRecord({
    propertyId: 'lst_sea',
    status: 'CONFIRMED',
    source: 'DIRECT',
    checkIn: '2025-07-01',
    checkOut: '2025-07-05',
    // Copies: a test may change a record's nested fields.
    primaryGuest: { ...SAMPLE_GUEST },
    occupancy: { ...SAMPLE_OCCUPANCY },
    financials: structuredClone(SAMPLE_FINANCIALS),
    bookedAt: new Date('2025-05-01T10:00:00Z'),
    updatedAt: new Date('2025-05-01T10:00:00Z'),
    ...fields,
  });
}

export interface ReservationUnderTest {
  running: RunningService;
  client: Upstream<pb.ReservationServiceClient>;
  /** host:port of its gRPC server (for clients of its other gRPC services). */
  address: string;
  stop(): Promise<void>;
}

/** Starts the service on ephemeral ports (defaults: a silent logger, DEFAULT_ADDRESSES; `deps` override). */
export async function startReservationUnderTest(
  deps: Pick<ReservationServiceDeps, 'store' | 'bus'> & Partial<ReservationServiceDeps>,
): Promise<ReservationUnderTest> {
  const running = await startReservationService({
    logger: createLogger('reservation', 'silent'),
    grpcPort: 0,
    opsPort: 0,
    host: '127.0.0.1',
    addresses: DEFAULT_ADDRESSES,
    ...deps,
  });
  const address = `127.0.0.1:${running.grpcPort}`;
  const client = createUpstream(pb.ReservationServiceClient, { name: 'reservation', address });
  return {
    running,
    client,
    address,
    async stop() {
      client.close();
      await running.stop();
    },
  };
}
