// Operator API for dead letters: the messages consumer groups set aside so that their partitions
// move on. Each consuming service stores its own (DeadLetterService); the list merges them,
// newest first, and replay/delete go to the service named in the id.
import { z } from 'zod';
import type { ops } from '@vrp/contracts';
import { dataWorkspaceId } from '@vrp/platform/sandbox';
import { deadLetterOwner, DEAD_LETTER_SERVICES, type DeadLetterServiceName } from '@vrp/platform/consumer';
import { notFound } from '@vrp/platform/errors';
import { pageInfo } from '@vrp/platform/paging';
import type { Upstream } from '@vrp/platform/grpc';
import { defineRoute, ok, type Route } from '../route';
import { deadLetterParams, deadLetterSchema, listDeadLettersQuery, paginationSchema, toApiDeadLetter } from '@vrp/api-model';

const tags = ['Admin'];

type DeadLetterUpstreams = Record<DeadLetterServiceName, Upstream<ops.DeadLetterServiceClient>>;

/** Newest first, the same order every service pages in. */
const newestFirst = (a: ops.DeadLetter, b: ops.DeadLetter) =>
  (b.firstFailedAt?.getTime() ?? 0) - (a.firstFailedAt?.getTime() ?? 0) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

function ownerOf(upstreams: DeadLetterUpstreams, id: string): Upstream<ops.DeadLetterServiceClient> {
  const owner = deadLetterOwner(id);
  if (!owner) throw notFound('dead letter', id);
  return upstreams[owner];
}

export function adminDeadLetterRoutes(upstreams: DeadLetterUpstreams): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/admin/v1/dead-letters',
      operationId: 'adminListDeadLetters',
      summary: 'List dead letters',
      description:
        'Messages that a consumer group could not apply (a permanent failure, or a transient one past the retry budget), newest first, from every service that consumes topics. Filters combine. Pages reach at most 1000 records deep; narrow with filters beyond that.',
      tags,
      auth: 'admin',
      query: listDeadLettersQuery,
      responses: { 200: z.object({ data: z.array(deadLetterSchema), pagination: paginationSchema }) },
      errors: ['service_unavailable'],
      async handler({ query }) {
        const services = query.service ? [query.service] : [...DEAD_LETTER_SERVICES];
        // A workspace's messages are stored under its data workspaces: live, and the test sandbox.
        const ws = query.workspace_id;
        const dataIds = !ws ? [''] : query.mode ? [dataWorkspaceId(ws, query.mode)] : [dataWorkspaceId(ws, 'live'), dataWorkspaceId(ws, 'test')];
        // Each service answers its newest offset+limit per data workspace; the page is cut from their merge.
        const pages = await Promise.all(
          services.flatMap((s) =>
            dataIds.map((workspaceId) =>
              upstreams[s].call('listDeadLetters', {
                topic: query.topic ?? '',
                consumerGroup: query.group ?? '',
                workspaceId,
                status: query.status,
                page: { limit: query.offset + query.limit, offset: 0 },
              }),
            ),
          ),
        );
        const merged = pages.flatMap((p) => p.deadLetters).sort(newestFirst);
        const items = merged.slice(query.offset, query.offset + query.limit);
        const total = pages.reduce((sum, p) => sum + (p.page?.total ?? 0), 0);
        return ok({ data: items.map(toApiDeadLetter), pagination: pageInfo(query, items.length, total) });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/admin/v1/dead-letters/:id/replay',
      operationId: 'adminReplayDeadLetter',
      summary: 'Replay a dead letter',
      description:
        'The owning service runs its consumer group’s handler once on the stored message. Applied: 200, and the dead letter is marked replayed (it is never applied again; replaying it again answers 409). Failed: the dead letter stays with its attempts and error updated, and the call answers 409 conflict (the cause is still there) or 503 service_unavailable (a transient failure; try again).',
      tags,
      auth: 'admin',
      params: deadLetterParams,
      responses: { 200: z.object({ data: deadLetterSchema }) },
      errors: ['not_found', 'conflict', 'service_unavailable'],
      async handler({ params }) {
        const res = await ownerOf(upstreams, params.id).call('replayDeadLetter', { id: params.id });
        return ok({ data: toApiDeadLetter(res.deadLetter) });
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/admin/v1/dead-letters/:id',
      operationId: 'adminDeleteDeadLetter',
      summary: 'Delete a dead letter',
      description:
        'Removes the record (the copy on `<topic>.dlq` stays until the topic’s retention). The message is not applied. Answers the deleted dead letter.',
      tags,
      auth: 'admin',
      params: deadLetterParams,
      responses: { 200: z.object({ data: deadLetterSchema }) },
      errors: ['not_found'],
      async handler({ params }) {
        const res = await ownerOf(upstreams, params.id).call('deleteDeadLetter', { id: params.id });
        return ok({ data: toApiDeadLetter(res.deadLetter) });
      },
    }),
  ];
}
