// JSON bodies of POST/PUT/PATCH: anything sent with another Content-Type is refused (415)
// before it is read; JSON is parsed with a 1 MiB limit (413) and strict syntax (400).
import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '@vrp/platform';
import { continueInContext } from '../request-state';

export const MAX_BODY_BYTES = 1024 * 1024;
const JSON_TYPES = ['application/json', 'application/*+json'];

/** True when the request carries body bytes (an empty body with any Content-Type is fine). */
function carriesBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(req.headers['content-length'] ?? '0');
  return Number.isFinite(length) && length > 0;
}

export function jsonBody(): RequestHandler {
  const parse = express.json({ limit: MAX_BODY_BYTES, strict: true, type: JSON_TYPES });
  return (req, res, next) => {
    if (!carriesBody(req)) {
      next();
      return;
    }
    if (!req.is(JSON_TYPES)) {
      next(new AppError('unsupported_media_type', `Request bodies must be JSON; got Content-Type '${(req.get('content-type') ?? '(none)').slice(0, 100)}'.`));
      return;
    }
    // The parser calls back from stream events, outside the request's async context.
    parse(req, res, (err?: unknown) => continueInContext(req, next, err));
  };
}
