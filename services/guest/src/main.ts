// The guest service as its own process (docker-compose, Kubernetes).
import { serviceMain } from '@vrp/platform';
import { startGuestService } from './app';

serviceMain({ name: 'guest', prefix: 'GUEST', defaults: { grpc: 50063, ops: 9163, db: 'vrp_guest' }, start: startGuestService });
