// The webhook service as its own process (docker-compose, Kubernetes).
import { loadConfigOrExit, serviceMain } from '@vrp/platform';
import { startWebhookService } from './app';
import { webhookConfig } from './config';

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
