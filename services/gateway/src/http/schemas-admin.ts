// Schemas of the operators' admin API that only the gateway serves: workspaces and API keys
// (the gateway owns them). The public API's schemas are @vrp/api-model's.
import { z } from 'zod';
import { component, isoDateTime, notANumber } from '@vrp/api-model';
import { API_KEY_MODES } from '../domain/api-key';
import { ACTIVE_LISTING_LIMIT_MAX, WORKSPACE_NAME_MAX_LENGTH } from '../domain/workspace';

/** A workspace's own fields; the API answers it with its plan's limits (`Workspace`, schemas-limits.ts). */
export const workspaceSchema = z.object({
  id: z.string(),
  name: z.string(),
  activeListingLimit: z.number().int().min(0),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export const workspaceUsageSchema = component(
  'WorkspaceUsage',
  'Listing counts of a workspace; inactive listings are not billed and do not count toward the limit.',
  z.object({
    activeListings: z.number().int(),
    inactiveListings: z.number().int(),
    billableListings: z.number().int(),
    activeListingLimit: z.number().int(),
  }),
);

export const workspaceNameInput = z.string().trim().min(1, 'must not be empty').max(WORKSPACE_NAME_MAX_LENGTH);
export const activeListingLimitInput = z
  .number({ error: notANumber })
  .int({ error: 'must be an integer' })
  .min(0)
  .max(ACTIVE_LISTING_LIMIT_MAX)
  .describe("Maximum number of active listings of the workspace's plan.");

export const apiKeyModeSchema = z.enum(API_KEY_MODES).describe('`test` keys start with sk_test_, `live` keys with sk_live_.');

export const apiKeySummarySchema = component(
  'ApiKey',
  'An issued API key, without its secret.',
  z.object({
    id: z.string(),
    workspaceId: z.string(),
    name: z.string().nullable(),
    mode: apiKeyModeSchema,
    prefix: z.string().describe('The first characters of the key, e.g. `sk_test_abcd…`.'),
    createdAt: isoDateTime,
    revokedAt: isoDateTime.nullable(),
  }),
);

export const createdApiKeySchema = component(
  'CreatedApiKey',
  'A newly issued key. `key` is shown only in this response; only its hash is kept.',
  apiKeySummarySchema.extend({ key: z.string().describe('The API key. Store it now: it cannot be shown again.') }),
);
