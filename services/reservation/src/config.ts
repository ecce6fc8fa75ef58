// What the reservation service reads from its environment: the settings every service reads
// (@vrp/platform/service, service/main.ts), under its prefix and defaults. `--help` prints them.
import type { ServiceDefinition } from '@vrp/platform/service';

export const reservationService: ServiceDefinition = {
  name: 'reservation',
  prefix: 'RESERVATION',
  defaults: { grpc: 50062, ops: 9162, db: 'vrp_reservation' },
};
