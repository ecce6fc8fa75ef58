// Human-readable pages. The API reference is Redoc (a well-kept OpenAPI renderer with a sidebar,
// search, field tables and the document's examples and code samples), its standalone bundle
// served by the gateway itself from the `redoc` package, so the docs work offline. One page per
// error code is plain self-contained HTML (inline CSS, no scripts) under a strict
// Content-Security-Policy, and so is the 404 page of an unknown code.
import { ERROR_CATALOG, docsPath, type ErrorCode } from '@vrp/platform/errors';
import type { OpenApiDocument } from './openapi';
import { recordedError } from './openapi-examples';

export const DOCS_CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/** `code` spans in catalog and OpenAPI prose (backticks), everything else escaped. */
function prose(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

/** Pretty JSON with component references turned into in-page links. */
function jsonBlock(value: unknown): string {
  const escaped = escapeHtml(JSON.stringify(value, null, 2));
  return `<pre>${escaped.replace(/&quot;#\/components\/schemas\/([A-Za-z0-9_]+)&quot;/g, '<a href="#schema-$1">&quot;#/components/schemas/$1&quot;</a>')}</pre>`;
}

const STYLE = `
body{font:15px/1.5 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;color:#1d232a;background:#fafbfc}
main{max-width:980px;margin:0 auto;padding:24px 32px 64px}
h1{font-size:28px;margin:8px 0}h1 code{font-size:inherit}h2{margin-top:48px;border-bottom:1px solid #dde2e7;padding-bottom:4px}
h3{margin:32px 0 4px;font-size:18px}code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:13px}
pre{background:#f0f3f6;padding:12px;border-radius:6px;overflow:auto;max-height:420px}
table{border-collapse:collapse;width:100%;margin:8px 0}th,td{border:1px solid #dde2e7;padding:6px 8px;text-align:left;vertical-align:top}
th{background:#f0f3f6}.method{display:inline-block;min-width:56px;font-weight:700;text-transform:uppercase}
.get{color:#0a7a3d}.post{color:#0a55b3}.patch,.put{color:#9a5b00}.delete{color:#b3261e}
nav ul{columns:2;padding-left:18px}a{color:#0a55b3}.muted{color:#5b6670}
`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

/** The reference page: Redoc's standalone bundle, served by this gateway (no CDN), rendering /v1/openapi.json. */
export const REDOC_BUNDLE_PATH = '/docs/assets/redoc.standalone.js';

/** What the Redoc page needs: its script from here, styled-components' inline styles, its search worker (a blob), the spec by fetch. */
export const REFERENCE_CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function renderReferencePage(doc: OpenApiDocument): string {
  // Redoc reads its options from the element's attributes; no inline script is needed.
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(doc.info.title)} reference</title><style>body{margin:0}</style></head>
<body>
<noscript><main style="font:15px/1.5 system-ui,sans-serif;max-width:760px;margin:24px auto"><h1>${escapeHtml(doc.info.title)}</h1>
<p>This reference needs JavaScript. The OpenAPI 3.1 document is at <a href="/v1/openapi.json">/v1/openapi.json</a>; every error code has a page under <a href="${docsPath('validation_failed')}">/docs/errors/</a>.</p></main></noscript>
<redoc spec-url="/v1/openapi.json" required-props-first="true" expand-responses="200,201,202" json-sample-expand-level="3" hide-hostname="true" sort-required-props-first="true"></redoc>
<script src="${REDOC_BUNDLE_PATH}"></script>
</body></html>`;
}

/** What a code's page says beyond the catalog entry. */
const ERROR_NOTES: Partial<Record<ErrorCode, string>> = {
  validation_failed:
    '<p>The envelope adds <code>fields</code>: an object naming each invalid parameter (query, path or body field) and what is wrong with it. Unknown query parameters and unknown body fields are named too.</p>',
  listing_inactive:
    '<p>The envelope adds two fields: <code>listing_ids</code>, the ids of <em>every</em> inactive listing the request touched, and <code>listings</code>, the same listings as <code>{ "id", "name" }</code> objects.</p>' +
    '<p>It fires when a request addresses an inactive listing directly, through a mapped channel id, through data belonging to it, or through a collection filter. When a request names several listings and any is inactive, nothing is written. The error is not transient: repeating the request without activating the listing returns the same 403. The listing toggles (PATCH and DELETE on <code>/v1/listings/{id}</code>, POST <code>/v1/listings/status</code>) work on inactive listings. An id that is not in the workspace is <code>404 not_found</code>, never this error.</p>',
  pms_write_unsupported:
    '<p>The envelope adds <code>provider</code>: the PMS managing the listing, whose API cannot perform this write. Nothing was sent to that PMS.</p>' +
    '<p>It is a property of that PMS, not of the plan or the connection: reconnecting does not change it, and the request must not be retried. Make the change in the PMS named in <code>provider</code>; it reaches this API with the next sync. Support can be read beforehand from <code>capabilities</code> on <code>GET /v1/listings/{id}</code>.</p>',
  listings_limit_exceeded: "<p>Inactive listings are not billed and do not count toward the plan's limit.</p>",
  service_unavailable: '<p>The response carries a <code>Retry-After</code> header (seconds).</p>',
  rate_limited:
    '<p>The response carries a <code>Retry-After</code> header (seconds) and <code>RateLimit-Limit</code>, <code>RateLimit-Remaining</code>, <code>RateLimit-Reset</code>. ' +
    "The message names the limit: the API key's rate, the workspace's rate, the workspace's concurrent requests, failed authentications from this address, or the admin API rate of this address. " +
    'Limits are values of the workspace plan; lower your request rate or concurrency, or ask for a larger plan.</p>',
  method_not_allowed: '<p>The <code>Allow</code> response header lists the methods the path accepts.</p>',
  idempotency_conflict:
    '<p>An <code>Idempotency-Key</code> is bound to the first request sent with it for 24 hours. Retrying with the same key and the same body replays the first response (marked <code>Idempotent-Replayed: true</code>).</p>',
  invalid_api_key: '<p>Revoked keys stop working on the next request.</p>',
};

function exampleEnvelope(code: ErrorCode, baseUrl: string): unknown {
  const recorded = recordedError(code);
  if (recorded) return rebaseDocsUrl(recorded, baseUrl);
  const entry = ERROR_CATALOG[code];
  const error: Record<string, unknown> = {
    code,
    message: entry.message,
    fix: entry.fix,
    docs_url: `${baseUrl}${docsPath(code)}`,
    request_id: 'req_3f9c2a7d1b4e4f0a9c8d7e6f5a4b3c2d',
  };
  if (code === 'validation_failed') error.fields = { limit: 'must be at most 200' };
  if (code === 'listing_inactive') {
    error.listing_ids = ['lst_7QmT2vYx9BcRk3HdNwPz'];
    error.listings = [{ id: 'lst_7QmT2vYx9BcRk3HdNwPz', name: 'Sea View Apartment' }];
  }
  if (code === 'pms_write_unsupported') error.provider = 'PMS-A';
  return { error };
}

/** A recorded envelope's docs_url on this deployment's base URL. */
function rebaseDocsUrl(envelope: { error: { code: ErrorCode } }, baseUrl: string): unknown {
  return { error: { ...envelope.error, docs_url: `${baseUrl}${docsPath(envelope.error.code)}` } };
}

export function renderErrorPage(code: ErrorCode, baseUrl: string): string {
  const entry = ERROR_CATALOG[code];
  return page(
    `${code} — ${entry.title}`,
    `<p><a href="/docs">← API reference</a></p>
<h1><code>${code}</code></h1>
<p class="muted">${escapeHtml(entry.title)} · HTTP ${entry.http}</p>
<h2>Message</h2><p>${prose(entry.message)}</p>
<h2>How to fix it</h2><p>${prose(entry.fix)}</p>
${ERROR_NOTES[code] ? `<h2>Details</h2>${ERROR_NOTES[code]}` : ''}
<h2>Example response</h2>
<p>HTTP ${entry.http}, with <code>X-Request-Id</code> equal to <code>error.request_id</code>${recordedError(code) ? ' (an answer of a running stack)' : ''}.</p>
${jsonBlock(exampleEnvelope(code, baseUrl))}`,
  );
}

/** The 404 page a browser gets for a code that does not exist (an API client gets the JSON envelope). */
export function renderUnknownErrorPage(code: string): string {
  const rows = (Object.keys(ERROR_CATALOG) as ErrorCode[])
    .map(
      (c) => `<tr><td><a href="${docsPath(c)}"><code>${c}</code></a></td><td>${ERROR_CATALOG[c].http}</td><td>${escapeHtml(ERROR_CATALOG[c].title)}</td></tr>`,
    )
    .join('');
  return page(
    'Unknown error code',
    `<p><a href="/docs">← API reference</a></p>
<h1>No error code <code>${escapeHtml(code.slice(0, 100))}</code></h1>
<p class="muted">HTTP 404</p>
<p>The API answers only the codes below; check the spelling of the <code>code</code> or <code>docs_url</code> you followed.</p>
<table><tr><th>Code</th><th>HTTP</th><th>Title</th></tr>${rows}</table>`,
  );
}
