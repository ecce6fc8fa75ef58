// Non-JSON endpoints: the HTML reference (/docs, /docs/errors/:code) and the operational
// endpoints (/healthz, /readyz, /metrics) served through the platform's ops handler. The public
// listener serves the reference and the health endpoints; the private one the health endpoints
// and /metrics.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Express } from 'express';
import { AppError, isErrorCode } from '@vrp/platform/errors';
import { handleOpsRequest, type ReadinessCheck } from '@vrp/platform/ops-server';
import {
  DOCS_CONTENT_SECURITY_POLICY,
  REDOC_BUNDLE_PATH,
  REFERENCE_CONTENT_SECURITY_POLICY,
  renderErrorPage,
  renderReferencePage,
  renderUnknownErrorPage,
} from './docs';
import type { OpenApiDocument } from './openapi';
import type { KnownEndpoint } from './router';

export type Listener = 'public' | 'private';

const OPS_PATHS: Record<Listener, string[]> = { public: ['/healthz', '/readyz'], private: ['/healthz', '/readyz', '/metrics'] };

/** The pages each listener serves. */
export const PAGE_ENDPOINTS: Record<Listener, KnownEndpoint[]> = {
  public: [
    { method: 'get', path: '/docs' },
    { method: 'get', path: '/docs/errors/:code' },
    { method: 'get', path: REDOC_BUNDLE_PATH },
    ...OPS_PATHS.public.map((path) => ({ method: 'get' as const, path })),
  ],
  private: OPS_PATHS.private.map((path) => ({ method: 'get' as const, path })),
};

/**
 * Where the `redoc` package's standalone bundle is: next to this module (sources, images), else
 * next to the gateway package (the bundle `pnpm start` runs lives elsewhere, where pnpm does not
 * hoist the gateway's dependencies; its `__dirname` is the entry's, inside the workspace).
 */
function redocBundleFile(): string {
  try {
    return require.resolve('redoc/bundles/redoc.standalone.js');
  } catch {
    const gateway = createRequire(join(__dirname, 'index.js')).resolve('@vrp/gateway/package.json');
    return createRequire(gateway).resolve('redoc/bundles/redoc.standalone.js');
  }
}

export function mountPages(
  app: Express,
  listener: Listener,
  opts: { document: () => OpenApiDocument; baseUrl: () => string; checks: Record<string, ReadinessCheck>; draining: () => boolean },
): void {
  for (const path of OPS_PATHS[listener]) {
    // The literal path, not req.path: `/healthz/` must reach the same handler.
    app.get(path, (_req, res) => {
      handleOpsRequest(path, opts.checks, opts.draining, res);
    });
  }
  if (listener === 'private') return;

  // Rendered on first use: the base URL is only known once the server listens.
  let reference: string | null = null;

  app.get('/docs', (_req, res) => {
    reference ??= renderReferencePage(opts.document());
    res.setHeader('Content-Security-Policy', REFERENCE_CONTENT_SECURITY_POLICY);
    res.type('html').send(reference);
  });

  // Read once, on first use (1 MB); kept in memory like the rendered page.
  let redoc: Promise<Buffer> | null = null;
  app.get(REDOC_BUNDLE_PATH, async (_req, res) => {
    redoc ??= readFile(redocBundleFile()).catch((err: unknown) => {
      redoc = null;
      throw err;
    });
    const script = await redoc;
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('js').send(script);
  });

  app.get('/docs/errors/:code', (req, res) => {
    const code = req.params.code;
    if (!isErrorCode(code)) {
      // A browser following a link gets a page; an API client the envelope.
      if (req.accepts(['json', 'html']) === 'html') {
        res.setHeader('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
        res.status(404).type('html').send(renderUnknownErrorPage(code));
        return;
      }
      throw new AppError('not_found', `No error code '${code.slice(0, 100)}' exists.`, {}, 'See the list of error codes at /docs.');
    }
    res.setHeader('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
    res.type('html').send(renderErrorPage(code, opts.baseUrl()));
  });
}
