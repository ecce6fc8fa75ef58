// Schemas of the operators' dead-letter API (/admin/v1/dead-letters): messages a consumer group
// set aside so that its partition moves on (docs/operations.md, "Dead letters").
import { z } from 'zod';
import { DEAD_LETTER_SERVICES, MAX_DEAD_LETTER_WINDOW } from '@vrp/platform/consumer';
import { DEAD_LETTER_REASONS, DEAD_LETTER_STATUS_FILTERS, MAX_ID_LENGTH, MODES } from '../vocabulary';
import { component, idParam, isoDateTime, pageQuery } from './common';

const filterText = (description: string) => z.string().trim().min(1).max(MAX_ID_LENGTH).optional().describe(description);

export const listDeadLettersQuery = z
  .strictObject({
    ...pageQuery,
    topic: filterText('Only messages read from this topic, e.g. pms.sync.v1.'),
    group: filterText('Only messages of this consumer group, e.g. reservation-pms-sync.'),
    workspace_id: filterText('Only messages of this workspace (when the consumer could tell), in both modes unless `mode` is given.'),
    mode: z.enum(MODES).optional().describe("With workspace_id: only the messages of that mode's data (test: the sandbox of test keys)."),
    service: z.enum(DEAD_LETTER_SERVICES).optional().describe('Only the dead letters stored by this service.'),
    status: z.enum(DEAD_LETTER_STATUS_FILTERS).default('open').describe('open (default): not replayed yet; replayed; all.'),
  })
  .refine((q) => q.offset + q.limit <= MAX_DEAD_LETTER_WINDOW, {
    path: ['offset'],
    message: `offset + limit must be at most ${MAX_DEAD_LETTER_WINDOW}; narrow the list with filters`,
  });

export const deadLetterParams = z.strictObject({ id: idParam('Dead letter id (dlq_<service>_...).') });

export const deadLetterSchema = component(
  'DeadLetter',
  'A message a consumer group could not apply, set aside so that its partition moves on. Stored by the consuming service and published on `<topic>.dlq` (protobuf vrp.ops.v1.DeadLetter).',
  z.object({
    id: z.string(),
    service: z.enum(DEAD_LETTER_SERVICES).describe('The service that stores it and replays it.'),
    consumerGroup: z.string(),
    topic: z.string(),
    partition: z.number().int().min(0),
    offset: z.string(),
    key: z.string(),
    headers: z.record(z.string(), z.string()),
    payloadBase64: z.string().describe('The original message bytes (protobuf of the topic), base64.'),
    errorCode: z.string().describe('Why, e.g. listing_deleted, malformed_payload, validation_failed, service_unavailable.'),
    errorMessage: z.string(),
    reason: z.enum(DEAD_LETTER_REASONS).describe('permanent: can never apply as it is; budget_exhausted: a transient failure that outlasted the retries.'),
    attempts: z.number().int().min(1).describe('Attempts so far: in place, and by replays.'),
    firstFailedAt: isoDateTime,
    lastFailedAt: isoDateTime,
    workspaceId: z.string().nullable(),
    mode: z.enum(MODES).nullable().describe('Whose data the message was about: the test-mode sandbox or live data (null when the consumer could not tell).'),
    listingId: z.string().nullable(),
    status: z.enum(['open', 'replayed']),
    replayedAt: isoDateTime.nullable().describe('When a replay applied it; a replayed dead letter is never applied again.'),
  }),
);
