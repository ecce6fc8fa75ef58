// The guest service as its own process (docker-compose, Kubernetes). `--help` lists its configuration.
import { serviceMain } from '@vrp/platform';
import { startGuestService } from './app';
import { guestService } from './config';

serviceMain({ definition: guestService, start: (deps) => startGuestService(deps) });
