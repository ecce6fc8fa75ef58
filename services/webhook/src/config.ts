// What the webhook service reads from its environment: the settings every service reads
// (@vrp/platform/service, service/main.ts) and its own below (docs/operations.md). `--help` prints them.
import { z } from 'zod';
import type { ServiceDefinition } from '@vrp/platform/service';
import { DEFAULT_ACTIVITY_WINDOWS } from './domain/activity-decision';
import { DEFAULT_EVENT_RETENTION_DAYS, MIN_EVENT_RETENTION_DAYS } from './domain/event-retention';

export const webhookConfig = z.object({
  // Only for development deployments: lets test-mode subscriptions deliver to loopback receivers.
  WEBHOOK_TEST_MODE_ALLOW_LOOPBACK: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe('development only: test-mode subscriptions may deliver to loopback addresses'),
  WEBHOOK_SEND_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(10_000).describe('time limit of one delivery attempt, ms'),
  // How long an event waits for a late listing.activity.v1 change (docs/webhooks.md): a
  // deactivation (delays every first delivery by up to this much; 0 turns the wait off) ...
  WEBHOOK_ACTIVITY_SETTLE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(DEFAULT_ACTIVITY_WINDOWS.settleMs)
    .describe('how long a deliverable-looking event waits for a late deactivation, ms'),
  // ... and an activation (events that look dropped are held this long).
  WEBHOOK_ACTIVITY_HOLD_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(86_400_000)
    .default(DEFAULT_ACTIVITY_WINDOWS.holdMs)
    .describe('how long an event of an inactive-looking listing waits for a late activation, ms'),
  // How long the Events API keeps an event (docs/events.md). Longer than the retry schedule
  // (about three days), so a delivery never outlives its event.
  WEBHOOK_EVENT_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(MIN_EVENT_RETENTION_DAYS)
    .max(365)
    .default(DEFAULT_EVENT_RETENTION_DAYS)
    .describe('how long GET /v1/events lists an event after it was stored, days'),
});

export const webhookService: ServiceDefinition<typeof webhookConfig> = {
  name: 'webhook',
  prefix: 'WEBHOOK',
  defaults: { grpc: 50065, ops: 9165, db: 'vrp_webhook' },
  extra: webhookConfig,
};
