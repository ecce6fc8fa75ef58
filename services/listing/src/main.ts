// The listing service as its own process (docker-compose, Kubernetes).
import { serviceMain } from '@vrp/platform';
import { startListingService } from './app';

serviceMain({ name: 'listing', prefix: 'LISTING', defaults: { grpc: 50061, ops: 9161, db: 'vrp_listing' }, start: startListingService });
