// What the listing service reads from its environment: the settings every service reads
// (@vrp/platform/service, service/main.ts), under its prefix and defaults. `--help` prints them.
import type { ServiceDefinition } from '@vrp/platform/service';

export const listingService: ServiceDefinition = { name: 'listing', prefix: 'LISTING', defaults: { grpc: 50061, ops: 9161, db: 'vrp_listing' } };
