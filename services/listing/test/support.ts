// The listing service for one describe block of its component tests: started over real gRPC on
// the embedded engines the block passes, with a client to call it.
import { listing as pb } from '@vrp/contracts';
import { createLogger } from '@vrp/platform/logging';
import { createUpstream, type Upstream } from '@vrp/platform/grpc';
import { DEFAULT_ADDRESSES, type RunningService } from '@vrp/platform/service';
import { startListingService, type ListingServiceDeps } from '../src/app';

export interface ListingUnderTest {
  running: RunningService;
  client: Upstream<pb.ListingServiceClient>;
  /** host:port of its gRPC server (for clients of its other gRPC services). */
  address: string;
}

/**
 * Starts the service in a beforeAll registered here (so before the block's own) and stops it in
 * an afterAll; read the fields in hooks and tests, where they are set.
 */
export function useListingService(deps: Pick<ListingServiceDeps, 'store' | 'bus'> & Partial<ListingServiceDeps>): ListingUnderTest {
  const sut = {} as ListingUnderTest;
  beforeAll(async () => {
    sut.running = await startListingService({
      logger: createLogger('listing', process.env.TEST_LOG_LEVEL ?? 'silent'),
      grpcPort: 0,
      opsPort: 0,
      host: '127.0.0.1',
      addresses: DEFAULT_ADDRESSES,
      ...deps,
    });
    sut.address = `127.0.0.1:${sut.running.grpcPort}`;
    sut.client = createUpstream(pb.ListingServiceClient, { name: 'listing', address: sut.address });
  });
  afterAll(async () => {
    sut.client?.close();
    await sut.running?.stop();
  });
  return sut;
}
