// The reservation service as its own process (docker-compose, Kubernetes). `--help` lists its configuration.
import { openEngines } from '@vrp/engines';
import { serviceMain } from '@vrp/platform/service';
import { startReservationService } from './app';
import { reservationService } from './config';

serviceMain({ definition: reservationService, engines: openEngines, start: (deps) => startReservationService(deps) });
