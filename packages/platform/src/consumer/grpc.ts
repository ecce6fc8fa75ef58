// vrp.ops.v1.DeadLetterService, implemented once: every service that consumes topics registers
// it on its gRPC server with its ConsumerRunner, and the gateway's admin API calls it.
import { ops } from '@vrp/contracts';
import { validationFailed } from '../errors/app-error';
import { service, type ServiceRegistration } from '../grpc/server';
import { pageInfo, pageWindow, requireId } from '../paging';
import { DEAD_LETTER_STATUS_FILTERS, type DeadLetterQuery } from './dead-letter-store';
import { toProtoDeadLetter, type ConsumerRunner } from './runner';

/** The gateway merges the pages of several services, so a service serves deeper pages. */
export const MAX_DEAD_LETTER_WINDOW = 1000;

const STATUSES = DEAD_LETTER_STATUS_FILTERS;

export function deadLetterService(runner: ConsumerRunner): ServiceRegistration {
  return service(ops.DeadLetterServiceService, {
    async listDeadLetters(req) {
      const status = (req.status || 'open') as DeadLetterQuery['status'];
      if (!STATUSES.includes(status)) throw validationFailed({ status: `must be one of ${STATUSES.join(', ')}` });
      const window = pageWindow(req.page, { max: MAX_DEAD_LETTER_WINDOW });
      const { docs, total } = await runner.list({ topic: req.topic, group: req.consumerGroup, workspaceId: req.workspaceId, status }, window);
      return { deadLetters: docs.map(toProtoDeadLetter), page: pageInfo(window, docs.length, total) };
    },
    async replayDeadLetter(req) {
      requireId(req.id);
      return { deadLetter: toProtoDeadLetter(await runner.replay(req.id)) };
    },
    async deleteDeadLetter(req) {
      requireId(req.id);
      return { deadLetter: toProtoDeadLetter(await runner.delete(req.id)) };
    },
  });
}

/** The services that consume topics and so serve DeadLetterService (ids are dlq_<service>_...). */
export const DEAD_LETTER_SERVICES = ['listing', 'reservation', 'guest', 'webhook', 'pms-adapter'] as const;
export type DeadLetterServiceName = (typeof DEAD_LETTER_SERVICES)[number];

/** The service that owns a dead letter, from its id; null for an id no service issued. */
export function deadLetterOwner(id: string): DeadLetterServiceName | null {
  const service = /^dlq_([a-z-]+)_/.exec(id)?.[1];
  return (DEAD_LETTER_SERVICES as readonly string[]).includes(service ?? '') ? (service as DeadLetterServiceName) : null;
}
