// The webhook service as its own process (docker-compose, Kubernetes). `--help` lists its configuration.
import { openEngines } from '@vrp/engines';
import { serviceMain } from '@vrp/platform/service';
import { startWebhookService } from './app';
import { webhookService } from './config';

serviceMain({
  definition: webhookService,
  engines: openEngines,
  start: (deps, config) =>
    startWebhookService({
      ...deps,
      allowLoopbackInTest: config.WEBHOOK_TEST_MODE_ALLOW_LOOPBACK,
      sendLimits: { timeoutMs: config.WEBHOOK_SEND_TIMEOUT_MS },
      eventRetentionDays: config.WEBHOOK_EVENT_RETENTION_DAYS,
      activityWindows: { settleMs: config.WEBHOOK_ACTIVITY_SETTLE_MS, holdMs: config.WEBHOOK_ACTIVITY_HOLD_MS },
    }),
});
