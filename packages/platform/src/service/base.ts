// The wiring every gRPC service starts with and ends on, written once: its bus watched for
// readiness, its outbox relay, its consumer runner, and a startService call that serves the
// service's handlers plus the dead-letter admin service with the same readiness checks.
import type { EventBus, TopicSpec } from '../bus/port';
import { watchConsumers } from '../bus/health';
import { deadLetterService } from '../consumer/grpc';
import { ConsumerRunner } from '../consumer/runner';
import type { ServiceRegistration } from '../grpc/server';
import { Outbox } from '../outbox';
import { dryRunAware } from '../store/dry-run';
import { startService, type RunningService } from './run';
import type { ServiceDeps } from './main';

export interface ServiceBase<D extends ServiceDeps> {
  /** The deps as given, with the bus replaced by one whose subscriptions /readyz watches. */
  deps: D & { bus: EventBus };
  /** Started; the service stops it in its own `onStop`, where its order requires. */
  outbox: Outbox;
  consumers: ConsumerRunner;
  /**
   * Starts the gRPC and ops servers: `services` plus the dead-letter admin service, ready while
   * the store, the bus and every consumer started through `deps.bus` are.
   */
  serve(opts: { services: ServiceRegistration[]; onStop: () => Promise<void> }): Promise<RunningService>;
}

/**
 * Starts the parts every service shares. `topics` are the topics the service publishes on,
 * created before the first write can need them.
 */
export async function startServiceBase<D extends ServiceDeps>(name: string, given: D, opts: { topics?: TopicSpec[] } = {}): Promise<ServiceBase<D>> {
  // /readyz covers every consumer this service starts (its own and its activity cache's).
  const watched = watchConsumers(given.bus);
  // In a dry run (`?dry_run=true`), nothing the service writes is kept (store/dry-run.ts).
  const deps = { ...given, store: dryRunAware(given.store), bus: watched.bus };
  if (opts.topics?.length) await deps.bus.ensureTopics(opts.topics);
  const outbox = new Outbox(deps.store, deps.bus, deps.logger, deps.outbox);
  outbox.start();
  const consumers = new ConsumerRunner({ service: name, store: deps.store, bus: deps.bus, outbox, logger: deps.logger, retry: deps.consumerRetry });
  return {
    deps,
    outbox,
    consumers,
    serve: ({ services, onStop }) =>
      startService({
        store: deps.store,
        name,
        grpcPort: deps.grpcPort,
        opsPort: deps.opsPort,
        host: deps.host,
        inProcess: deps.inProcessCalls ?? false,
        ...(deps.grpcMaxConnectionAgeMs ? { maxConnectionAgeMs: deps.grpcMaxConnectionAgeMs } : {}),
        services: [...services, deadLetterService(consumers)],
        checks: { store: () => deps.store.ready(), bus: () => deps.bus.ready(), consumers: watched.ready },
        stoppedConsumers: watched.stopped,
        logger: deps.logger,
        onStop,
      }),
  };
}
