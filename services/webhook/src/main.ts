// The webhook service as its own process (docker-compose, Kubernetes).
import { z } from 'zod';
import { loadConfigOrExit, serviceMain } from '@vrp/platform';
import { startWebhookService } from './app';

/** Settings of this service beyond those every service reads. */
const webhookConfig = z.object({
  // Only for development deployments: lets test-mode subscriptions deliver to loopback receivers.
  WEBHOOK_TEST_MODE_ALLOW_LOOPBACK: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  WEBHOOK_SEND_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(10_000),
});

serviceMain({
  name: 'webhook',
  prefix: 'WEBHOOK',
  defaults: { grpc: 50065, ops: 9165, db: 'vrp_webhook' },
  start: (deps) => {
    const config = loadConfigOrExit(webhookConfig);
    return startWebhookService({ ...deps, allowLoopbackInTest: config.WEBHOOK_TEST_MODE_ALLOW_LOOPBACK, sendLimits: { timeoutMs: config.WEBHOOK_SEND_TIMEOUT_MS } });
  },
});
