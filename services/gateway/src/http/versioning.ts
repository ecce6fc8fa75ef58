// ETag on the responses of versioned records, and the If-Match precondition of their writes.
import type { Request, Response } from 'express';
import { etagOf, versionFromIfMatch } from '../domain/etag';

/** The precondition a write passes on to its service (0 = none; see domain/etag). */
export const expectedVersion = (req: Request): number => versionFromIfMatch(req.get('If-Match'));

/** Sets `ETag` to the record's version and hands the body back. */
export function withETag<B>(res: Response, version: number, body: B): B {
  res.setHeader('ETag', etagOf(version));
  return body;
}
