// Schemas of the PMS connection endpoints: GET /v1/connect/{provider} and the operator API
// under /admin/v1/workspaces/{id}/connections.
import { z } from 'zod';
import { PROVIDERS } from '@vrp/pms-matrix';
import { CONNECTION_STATUSES, MAX_ID_LENGTH, MODES } from '../vocabulary';
import { component, idParam, isoDateTime } from './common';
import { capabilitiesSchema } from './listing';

export const providerParam = z
  .string()
  .min(1)
  .max(50)
  .describe(`A PMS: ${PROVIDERS[0]} .. ${PROVIDERS[PROVIDERS.length - 1]} (case-insensitive). An unknown PMS answers 404 not_found.`);

export const connectCapabilitiesSchema = component(
  'ProviderCapabilities',
  'What a PMS’s API can perform, from the capability matrix: the same flags as `capabilities` on GET /v1/listings/{id}.',
  z.object({
    provider: z.string(),
    capabilities: capabilitiesSchema,
  }),
);

export const pmsConnectionSchema = component(
  'PmsConnection',
  'A workspace’s connection to one account in a PMS. Connecting imports the account’s listings; disconnecting makes them inactive.',
  z.object({
    id: z.string(),
    workspaceId: z.string(),
    mode: z.enum(MODES).describe('The mode whose data the account feeds: test keys see the listings of test connections only, live keys those of live ones.'),
    provider: z.enum(PROVIDERS),
    accountId: z.string().describe('The account’s id in the PMS.'),
    status: z.enum(CONNECTION_STATUSES),
    createdAt: isoDateTime,
    lastSyncedAt: isoDateTime.nullable().describe('When the last sync from the PMS completed; null before the first.'),
  }),
);

const syncErrorSchema = z.object({
  source: z.enum(['pms', 'apply']).describe('`pms`: pulling the PMS’s change feed failed; `apply`: a service failed to apply a change.'),
  code: z.string().describe('The error code (e.g. `pms_unavailable`, `listing_deleted`).'),
  message: z.string(),
  at: isoDateTime,
  service: z.string().nullable().describe('For `apply`: the service that applies the change (listing, reservation, guest).'),
  changeId: z.string().nullable().describe('For `apply`: the change (`chg_...`, the `change_id` of pms.sync.v1).'),
});

export const syncHealthSchema = component(
  'PmsSyncHealth',
  'How the connection’s sync is doing. `state` is `failing` after 3 failed pulls of the PMS in a row or when the oldest pending change is over 15 minutes old; `degraded` when the last pull failed, a change is dead-lettered and not replayed, or the oldest pending change is over 60 s old; `healthy` otherwise (docs/operations.md, "PMS sync health").',
  z.object({
    state: z.enum(['healthy', 'degraded', 'failing']),
    reasons: z.array(z.string()).describe('Why the state is not healthy; empty when healthy.'),
    lastSuccessfulSyncAt: isoDateTime.nullable().describe('The last pull of the PMS’s change feed that completed; null before the first.'),
    lastAttemptAt: isoDateTime.nullable(),
    consecutiveFailures: z.number().int().min(0).describe('Pulls of the PMS that failed in a row since the last one that completed.'),
    lagSeconds: z
      .number()
      .min(0)
      .describe('Age of the oldest change published and neither applied nor dead-lettered yet, from when it was read from the PMS; 0 when none is pending.'),
    changes: z.object({
      published: z.number().int().min(0).describe('Changes read from the PMS and published on pms.sync.v1.'),
      applied: z.number().int().min(0).describe('Changes the owning service applied (a replayed dead letter counts when it applies).'),
      failed: z.number().int().min(0).describe('Changes whose application failed at least once (retried in place).'),
      deadLettered: z.number().int().min(0).describe('Changes set aside as dead letters (see /admin/v1/dead-letters).'),
      pending: z.number().int().min(0).describe('Changes published and not applied or dead-lettered yet.'),
      deadLettersOpen: z.number().int().min(0).describe('Dead letters of the connection not replayed or deleted yet.'),
    }),
    lastError: syncErrorSchema.nullable().describe('The last error of a pull or of applying a change; null when none yet.'),
  }),
);

export const createConnectionBody = z.strictObject({
  provider: z
    .string()
    .transform((v) => v.trim().toUpperCase())
    .pipe(z.enum(PROVIDERS, { error: `must be one of ${PROVIDERS.join(', ')}` }))
    .meta({ enum: [...PROVIDERS], description: `The PMS: ${PROVIDERS[0]} .. ${PROVIDERS[PROVIDERS.length - 1]}.` }),
  accountId: z.string().trim().min(1, 'must not be empty').max(MAX_ID_LENGTH).describe('The account’s id in the PMS.'),
  mode: z
    .enum(MODES)
    .describe('`live` imports into the data live keys see, `test` into the test-mode sandbox of test keys. The same account may be connected in both.'),
});

export const connectionParams = z.strictObject({
  id: idParam('Workspace id (ws_...).'),
  connectionId: idParam('Connection id (pmc_...).'),
});
