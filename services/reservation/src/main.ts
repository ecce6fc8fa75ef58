// The reservation service as its own process (docker-compose, Kubernetes).
import { serviceMain } from '@vrp/platform';
import { startReservationService } from './app';

serviceMain({ name: 'reservation', prefix: 'RESERVATION', defaults: { grpc: 50062, ops: 9162, db: 'vrp_reservation' }, start: startReservationService });
