// The reservation service as its own process (docker-compose, Kubernetes). `--help` lists its configuration.
import { serviceMain } from '@vrp/platform';
import { startReservationService } from './app';
import { reservationService } from './config';

serviceMain({ definition: reservationService, start: (deps) => startReservationService(deps) });
