// What the guest service reads from its environment: the settings every service reads
// (@vrp/platform/service, service/main.ts), under its prefix and defaults. `--help` prints them.
import type { ServiceDefinition } from '@vrp/platform/service';

export const guestService: ServiceDefinition = { name: 'guest', prefix: 'GUEST', defaults: { grpc: 50063, ops: 9163, db: 'vrp_guest' } };
