// A stand-in gRPC server for a service a component test does not boot (e.g. the pms-adapter
// behind the PMS relay client): real gRPC on an ephemeral port, answering only what the test fakes.
import { createLogger } from '@vrp/platform/logging';
import { service, type Handlers } from '@vrp/platform/grpc';
import { startService, type RunningService } from '@vrp/platform/service';

/** Serves `definition` with `handlers`; a call of any other method fails with "<method> is not faked". */
export async function startFakeService<D extends Parameters<typeof service>[0]>(
  name: string,
  definition: D,
  handlers: Partial<Handlers<D>>,
): Promise<RunningService> {
  const notFaked = Object.fromEntries(Object.keys(definition).map((m) => [m, () => Promise.reject(new Error(`${m} is not faked`))]));
  return startService({
    name,
    grpcPort: 0,
    opsPort: 0,
    host: '127.0.0.1',
    services: [service(definition, { ...notFaked, ...handlers } as Handlers<D>)],
    checks: {},
    logger: createLogger(name, 'silent'),
  });
}
