// The guest service as its own process (docker-compose, Kubernetes). `--help` lists its configuration.
import { openEngines } from '@vrp/engines';
import { serviceMain } from '@vrp/platform/service';
import { startGuestService } from './app';
import { guestService } from './config';

serviceMain({ definition: guestService, engines: openEngines, start: (deps) => startGuestService(deps) });
