// The webhook service as its own process (docker-compose, Kubernetes).
import { z } from 'zod';
import { loadConfigOrExit, serviceMain } from '@vrp/platform';
import { DEFAULT_ACTIVITY_WINDOWS, startWebhookService } from './app';

/** Settings of this service beyond those every service reads. */
const webhookConfig = z.object({
  // Only for development deployments: lets test-mode subscriptions deliver to loopback receivers.
  WEBHOOK_TEST_MODE_ALLOW_LOOPBACK: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  WEBHOOK_SEND_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(10_000),
  // How long an event waits for a late listing.activity.v1 change (docs/webhooks.md): a
  // deactivation (delays every first delivery by this much; 0 turns the wait off) ...
  WEBHOOK_ACTIVITY_SETTLE_MS: z.coerce.number().int().min(0).max(60_000).default(DEFAULT_ACTIVITY_WINDOWS.settleMs),
  // ... and an activation (events that look dropped are held this long).
  WEBHOOK_ACTIVITY_HOLD_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(DEFAULT_ACTIVITY_WINDOWS.holdMs),
});

serviceMain({
  name: 'webhook',
  prefix: 'WEBHOOK',
  defaults: { grpc: 50065, ops: 9165, db: 'vrp_webhook' },
  start: (deps) => {
    const config = loadConfigOrExit(webhookConfig);
    return startWebhookService({
      ...deps,
      allowLoopbackInTest: config.WEBHOOK_TEST_MODE_ALLOW_LOOPBACK,
      sendLimits: { timeoutMs: config.WEBHOOK_SEND_TIMEOUT_MS },
      activityWindows: { settleMs: config.WEBHOOK_ACTIVITY_SETTLE_MS, holdMs: config.WEBHOOK_ACTIVITY_HOLD_MS },
    });
  },
});
