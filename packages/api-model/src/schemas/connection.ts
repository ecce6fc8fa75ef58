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

export const createConnectionBody = z.strictObject({
  provider: z
    .string()
    .transform((v) => v.trim().toUpperCase())
    .pipe(z.enum(PROVIDERS, { error: `must be one of ${PROVIDERS.join(', ')}` }))
    .describe(`The PMS: ${PROVIDERS[0]} .. ${PROVIDERS[PROVIDERS.length - 1]}.`),
  accountId: z.string().trim().min(1, 'must not be empty').max(MAX_ID_LENGTH).describe('The account’s id in the PMS.'),
  mode: z.enum(MODES).describe('`live` imports into the data live keys see, `test` into the test-mode sandbox of test keys. The same account may be connected in both.'),
});

export const connectionParams = z.strictObject({
  id: idParam('Workspace id (ws_...).'),
  connectionId: idParam('Connection id (pmc_...).'),
});
