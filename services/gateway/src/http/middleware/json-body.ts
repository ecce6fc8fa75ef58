// JSON bodies of POST/PUT/PATCH: anything sent with another Content-Type is refused (415)
// before it is read, and so is a Content-Encoding the parser cannot decode (415
// unsupported_encoding, naming the accepted ones); JSON is parsed with a 1 MiB limit (413, after
// decompression) and strict syntax (400); a body that does not decode as its Content-Encoding
// says is 400 invalid_json.
import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '@vrp/platform/errors';
import { continueInContext } from '../request-state';

export const MAX_BODY_BYTES = 1024 * 1024;
const JSON_TYPES = ['application/json', 'application/*+json'];
/** The Content-Encodings of a request body the parser decodes (one coding; none means identity). */
export const ACCEPTED_CONTENT_ENCODINGS = ['gzip', 'deflate', 'br', 'identity'] as const;

/** The request's Content-Encoding, lower case ('identity' when absent). */
function contentEncoding(req: Request): string {
  return (req.get('content-encoding') ?? 'identity').trim().toLowerCase() || 'identity';
}

/** A body that did not decode (corrupt gzip, deflate or brotli data): the parser's 400 without a type of its own. */
function undecodable(err: unknown, encoding: string): AppError | null {
  if (encoding === 'identity' || typeof err !== 'object' || err === null || 'type' in err) return null;
  return new AppError('invalid_json', `The request body could not be decoded as ${encoding}, as its Content-Encoding says.`);
}

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
    const encoding = contentEncoding(req);
    if (!(ACCEPTED_CONTENT_ENCODINGS as readonly string[]).includes(encoding)) {
      next(
        new AppError(
          'unsupported_encoding',
          `Content-Encoding '${encoding.slice(0, 100)}' is not accepted; accepted: ${ACCEPTED_CONTENT_ENCODINGS.join(', ')} (one coding, not a list).`,
        ),
      );
      return;
    }
    // The parser calls back from stream events, outside the request's async context.
    parse(req, res, (err?: unknown) => continueInContext(req, next, err === undefined ? err : (undecodable(err, encoding) ?? err)));
  };
}
