// The listing service as its own process (docker-compose, Kubernetes). `--help` lists its configuration.
import { serviceMain } from '@vrp/platform';
import { startListingService } from './app';
import { listingService } from './config';

serviceMain({ definition: listingService, start: (deps) => startListingService(deps) });
