// pino JSON lines. Every line carries the service name and, inside a request, its request id.
import pino, { type Logger } from 'pino';
import { currentContext } from './context';

export type { Logger };

/**
 * How the process's stdout destination batches its lines: a write is made once `bytes` are
 * waiting, and whatever waits is written at least every `flushMs`. One write per line cost a
 * thread hand-off per request (an async write goes through libuv's thread pool and wakes the event
 * loop when done): at 1,000 requests/s, 0.25 ms of the embedded stack's 0.7 ms of CPU per request
 * (docs/performance.md). A line is on stdout within `flushMs` in a quiet process.
 */
const LOG_BATCH = { bytes: 4096, flushMs: 100 };

/**
 * One stdout destination for every logger of the process (the embedded stack has one per
 * service), written asynchronously in batches (LOG_BATCH): a write does not block the event loop,
 * and one write carries many lines. One destination keeps lines whole and in order. pino flushes
 * it synchronously on exit (including an uncaught exception); only a process killed outright
 * (SIGKILL, OOM) loses what waits for its write: at most `LOG_BATCH.flushMs` of lines.
 */
let stdout: pino.DestinationStream | undefined;
const destination = (): pino.DestinationStream =>
  (stdout ??= pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH.bytes, periodicFlush: LOG_BATCH.flushMs }));

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
