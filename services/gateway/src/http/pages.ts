// Non-JSON endpoints: the HTML reference (/docs, /docs/errors/:code) and the operational
// endpoints (/healthz, /readyz, /metrics) served through the platform's ops handler.
import type { Express } from 'express';
import { AppError, handleOpsRequest, isErrorCode, type ReadinessCheck } from '@vrp/platform';
import { DOCS_CONTENT_SECURITY_POLICY, renderErrorPage, renderReferencePage } from './docs';
import type { OpenApiDocument } from './openapi';
import type { KnownEndpoint } from './router';

export const PAGE_ENDPOINTS: KnownEndpoint[] = [
  { method: 'get', path: '/docs' },
  { method: 'get', path: '/docs/errors/:code' },
  { method: 'get', path: '/healthz' },
  { method: 'get', path: '/readyz' },
  { method: 'get', path: '/metrics' },
];

export function mountPages(
  app: Express,
  opts: { document: () => OpenApiDocument; baseUrl: () => string; checks: Record<string, ReadinessCheck>; draining: () => boolean },
): void {
  // Rendered on first use: the base URL is only known once the server listens.
  let reference: string | null = null;

  app.get('/docs', (_req, res) => {
    reference ??= renderReferencePage(opts.document());
    res.setHeader('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
    res.type('html').send(reference);
  });

  app.get('/docs/errors/:code', (req, res) => {
    const code = req.params.code;
    if (!isErrorCode(code)) throw new AppError('not_found', `No error code '${code.slice(0, 100)}' exists.`, {}, 'See the list of error codes at /docs.');
    res.setHeader('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
    res.type('html').send(renderErrorPage(code, opts.baseUrl()));
  });

  for (const path of ['/healthz', '/readyz', '/metrics']) {
    // The literal path, not req.path: `/healthz/` must reach the same handler.
    app.get(path, (_req, res) => {
      handleOpsRequest(path, opts.checks, opts.draining, res);
    });
  }
}
