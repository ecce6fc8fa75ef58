// API shapes of a workspace plan's rate and concurrency limits (admin API) and of the usage per
// mode. The values and defaults are domain/rate-limits.ts.
import { z } from 'zod';
import { BURST_WINDOW_SECONDS, DEFAULT_RATE_LIMITS, effectiveRateLimits, RATE_LIMIT_VALUE_MAX, type RateLimits } from '../domain/rate-limits';
import type { Workspace } from '../domain/workspace';
import { toApiWorkspace } from './mappers';
import { component } from '@vrp/api-model';
import { workspaceSchema, workspaceUsageSchema } from './schemas-admin';

const DESCRIPTIONS: Record<keyof RateLimits, string> = {
  keyRequestsPerSecond: `Sustained requests per second of one API key (default ${DEFAULT_RATE_LIMITS.keyRequestsPerSecond}).`,
  keyBurst: `Requests one key may make beyond its per-second rate, refilled every ${BURST_WINDOW_SECONDS} s (default ${DEFAULT_RATE_LIMITS.keyBurst}).`,
  workspaceRequestsPerSecond: `Sustained requests per second of the workspace, all keys of one mode together (default ${DEFAULT_RATE_LIMITS.workspaceRequestsPerSecond}).`,
  workspaceBurst: `Burst allowance of the workspace per mode, refilled every ${BURST_WINDOW_SECONDS} s (default ${DEFAULT_RATE_LIMITS.workspaceBurst}).`,
  workspaceConcurrency: `Requests of the workspace (per mode) in progress at once on one gateway replica (default ${DEFAULT_RATE_LIMITS.workspaceConcurrency}).`,
};

const limitValue = (field: keyof RateLimits) => z.number().int('must be an integer').min(1).max(RATE_LIMIT_VALUE_MAX).describe(DESCRIPTIONS[field]);

export const rateLimitsSchema = component(
  'RateLimits',
  'The rate and concurrency limits of a workspace plan, as in effect (defaults where the operator set nothing). Test and live mode each have their own workspace counters with these values.',
  z.object({
    keyRequestsPerSecond: limitValue('keyRequestsPerSecond'),
    keyBurst: limitValue('keyBurst'),
    workspaceRequestsPerSecond: limitValue('workspaceRequestsPerSecond'),
    workspaceBurst: limitValue('workspaceBurst'),
    workspaceConcurrency: limitValue('workspaceConcurrency'),
  }),
);

/** Admin input: any subset; `null` returns a value to its default. */
export const rateLimitsInput = z
  .strictObject({
    keyRequestsPerSecond: limitValue('keyRequestsPerSecond').nullable().optional(),
    keyBurst: limitValue('keyBurst').nullable().optional(),
    workspaceRequestsPerSecond: limitValue('workspaceRequestsPerSecond').nullable().optional(),
    workspaceBurst: limitValue('workspaceBurst').nullable().optional(),
    workspaceConcurrency: limitValue('workspaceConcurrency').nullable().optional(),
  })
  .describe('Rate and concurrency limits of the plan; fields left out keep their value, `null` restores the default.');

export const planWorkspaceSchema = component(
  'Workspace',
  'A tenant with its plan. Every API key belongs to exactly one workspace.',
  workspaceSchema.extend({ rateLimits: rateLimitsSchema }),
);

/** Admin GET of a workspace: `usage` is live mode's, `testUsage` the sandbox's (its own count against the same limit). */
export const workspaceWithUsageSchema = component(
  'WorkspaceWithUsage',
  'A workspace with its plan and its listing counts per mode.',
  planWorkspaceSchema.extend({
    usage: workspaceUsageSchema,
    testUsage: workspaceUsageSchema.describe(
      'Listing counts of the test-mode sandbox: test keys have their own listings, counted against the same plan limit.',
    ),
  }),
);

export function toApiPlanWorkspace(ws: Workspace): z.input<typeof planWorkspaceSchema> {
  return { ...toApiWorkspace(ws), rateLimits: effectiveRateLimits(ws.rateLimits) };
}
