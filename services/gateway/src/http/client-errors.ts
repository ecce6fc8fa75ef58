// Errors Node's HTTP parser answers before Express sees a request (malformed request line or
// framing, headers over the limit, a request not received in time). Node's default writes a
// bare `400 Bad Request` with no body; here the same failure gets the error envelope like any
// other error, with a request id, and the connection is closed (its framing is unknown).
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { acceptOrCreateRequestId } from '@vrp/platform/context';
import { AppError, type ErrorCode } from '@vrp/platform/errors';
import type { Logger } from '@vrp/platform/logging';
import { toErrorEnvelope } from './envelope';

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** The catalog code of a parser error (llhttp's `HPE_*` codes, Node's request timeout). */
export function clientErrorCode(err: NodeJS.ErrnoException): ErrorCode {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return 'headers_too_large';
    case 'HPE_REQUEST_TIMEOUT':
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'request_timeout';
    default:
      return 'malformed_request';
  }
}

/** The raw HTTP/1.1 response carrying the envelope of `code`. */
export function clientErrorResponse(code: ErrorCode, baseUrl: string): string {
  const requestId = acceptOrCreateRequestId(undefined);
  const error = new AppError(code);
  const body = JSON.stringify(toErrorEnvelope(error, requestId, baseUrl));
  return [
    `HTTP/1.1 ${error.httpStatus} ${REASONS[error.httpStatus] ?? 'Bad Request'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'X-Content-Type-Options: nosniff',
    'Cache-Control: no-store',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

export function answerClientErrors(server: Server, deps: { baseUrl: () => string; logger: Logger }): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A peer that went away (or a socket already answered) gets nothing: there is no one to tell.
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const code = clientErrorCode(err);
    deps.logger.info({ code, parser_error: err.code }, 'malformed HTTP request refused');
    socket.end(clientErrorResponse(code, deps.baseUrl()));
  });
}
