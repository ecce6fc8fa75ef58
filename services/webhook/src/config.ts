// Settings of the webhook service beyond those every service reads (docs/operations.md).
import { z } from 'zod';
import { DEFAULT_ACTIVITY_WINDOWS } from './domain/activity-decision';

export const webhookConfig = z.object({
  // Only for development deployments: lets test-mode subscriptions deliver to loopback receivers.
  WEBHOOK_TEST_MODE_ALLOW_LOOPBACK: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  WEBHOOK_SEND_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(10_000),
  // How long an event waits for a late listing.activity.v1 change (docs/webhooks.md): a
  // deactivation (delays every first delivery by up to this much; 0 turns the wait off) ...
  WEBHOOK_ACTIVITY_SETTLE_MS: z.coerce.number().int().min(0).max(60_000).default(DEFAULT_ACTIVITY_WINDOWS.settleMs),
  // ... and an activation (events that look dropped are held this long).
  WEBHOOK_ACTIVITY_HOLD_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(DEFAULT_ACTIVITY_WINDOWS.holdMs),
});
