// pino JSON lines. Every line carries the service name and, inside a request, its request id.
import pino, { type Logger } from 'pino';
import { currentContext } from './context';

export type { Logger };

/**
 * One stdout destination for every logger of the process (the embedded stack has one per
 * service), written asynchronously: a line is handed to the kernel by a write that does not
 * block the event loop, and lines logged while a write is in flight go out together in the next
 * one (one write per line cost the gateway a syscall per request). No minimum length:
 * a quiet process writes each line at once. One destination keeps lines whole and in order.
 * pino flushes it synchronously on exit (including an uncaught exception); only a process killed
 * outright (SIGKILL, OOM) can lose the lines of the write in flight.
 */
let stdout: pino.DestinationStream | undefined;
const destination = (): pino.DestinationStream => (stdout ??= pino.destination({ dest: 1, sync: false }));

/** `to`: where the lines go (tests read them); default the process's one stdout destination. */
/** The levels LOG_LEVEL accepts (pino's). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? 'info', to?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Secrets never reach the logs, wherever they appear in a logged object.
      redact: { paths: ['*.authorization', '*.apiKey', '*.secret', '*.token', 'headers.authorization'], censor: '[redacted]' },
      mixin() {
        const ctx = currentContext();
        return ctx ? { request_id: ctx.requestId, ...(ctx.workspaceId ? { workspace_id: ctx.workspaceId } : {}) } : {};
      },
    },
    to ?? destination(),
  );
}
