// `res.json` of the gateway's app: the same bytes and headers as Express's (Content-Type
// `application/json; charset=utf-8`, Content-Length, no body on HEAD), written without the work
// Express's `res.send` does per response that the gateway never uses: re-parsing and formatting
// the Content-Type to add the charset, the ETag hook (ETags are off) and the app settings
// lookups (json replacer, spaces, escape: not set). What this does not cover (no body, 204/304,
// a conditional request, a Content-Type set by the handler) goes to Express's own. Installed on the
// app's response prototype, so every `res.json` of the app (routes, errors, idempotent replays
// and the idempotency recorder that wraps it) takes it (docs/architecture.md).
import express, { type Response } from 'express';

const expressJson = express.response.json;

export function installJsonResponse(app: express.Express): void {
  app.response.json = function json(this: Response, body?: unknown): Response {
    // An answer already went out (the response deadline's 504): a late one is dropped, while
    // whatever wraps res.json (the idempotency recorder) still sees the real outcome.
    if (this.headersSent) return this;
    const status = this.statusCode;
    // A conditional request (If-None-Match, If-Modified-Since) keeps Express's own freshness check.
    const conditional = this.req.headers['if-none-match'] !== undefined || this.req.headers['if-modified-since'] !== undefined;
    if (body === undefined || status === 204 || status === 304 || conditional || this.getHeader('Content-Type') !== undefined)
      return expressJson.call(this, body);
    const text = JSON.stringify(body);
    this.setHeader('Content-Type', 'application/json; charset=utf-8');
    this.setHeader('Content-Length', String(Buffer.byteLength(text)));
    if (this.req.method === 'HEAD') this.end();
    else this.end(text);
    return this;
  };
}
