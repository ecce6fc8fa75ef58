// The webhook service as its component tests start it: real gRPC on ephemeral ports, embedded
// engines given by the test, deliveries allowed to the local receiver.
import { webhook as pb } from '@vrp/contracts';
import { createLogger } from '@vrp/platform/logging';
import { createUpstream, type Upstream } from '@vrp/platform/grpc';
import { DEFAULT_ADDRESSES, type RunningService } from '@vrp/platform/service';
import { startWebhookService, type WebhookServiceDeps } from '../src/app';

/** Starts the service (defaults: a silent logger, DEFAULT_ADDRESSES, loopback receivers allowed; `deps` override). */
export function startWebhookUnderTest(deps: Pick<WebhookServiceDeps, 'store' | 'bus'> & Partial<WebhookServiceDeps>): Promise<RunningService> {
  return startWebhookService({
    logger: createLogger('webhook', 'silent'),
    grpcPort: 0,
    opsPort: 0,
    host: '127.0.0.1',
    addresses: DEFAULT_ADDRESSES,
    allowLoopbackInTest: true,
    ...deps,
  });
}

/** A client of a started webhook service. */
export function connectWebhook(service: RunningService): Upstream<pb.WebhookServiceClient> {
  return createUpstream(pb.WebhookServiceClient, { name: 'webhook', address: `127.0.0.1:${service.grpcPort}` });
}
