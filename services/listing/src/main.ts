// The listing service as its own process (docker-compose, Kubernetes). `--help` lists its configuration.
import { openEngines } from '@vrp/engines';
import { serviceMain } from '@vrp/platform/service';
import { startListingService } from './app';
import { listingService } from './config';

serviceMain({ definition: listingService, engines: openEngines, start: (deps) => startListingService(deps) });
