// Human-readable reference pages, rendered from the OpenAPI document and the error catalog:
// plain, self-contained HTML (inline CSS, no scripts, no CDN), so the docs work offline and
// under a strict Content-Security-Policy.
import { ERROR_CATALOG, docsPath, type ErrorCode } from '@vrp/platform';
import { DEFAULT_RATE_LIMITS as D } from '../domain/rate-limits';
import type { OpenApiDocument, OperationObject, ParameterObject } from './openapi';

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
h1{font-size:28px;margin:8px 0}h2{margin-top:48px;border-bottom:1px solid #dde2e7;padding-bottom:4px}
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

function parametersTable(parameters: ParameterObject[]): string {
  if (parameters.length === 0) return '';
  const rows = parameters
    .map((p) => {
      const type = typeof p.schema.type === 'string' ? p.schema.type : 'value';
      const enumValues = Array.isArray(p.schema.enum) ? ` (${p.schema.enum.map((v) => String(v)).join(' | ')})` : '';
      const range = [
        p.schema.minimum !== undefined ? `min ${String(p.schema.minimum)}` : '',
        p.schema.maximum !== undefined ? `max ${String(p.schema.maximum)}` : '',
      ]
        .filter(Boolean)
        .join(', ');
      const fallback = p.schema.default !== undefined ? JSON.stringify(p.schema.default) : '';
      return `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}</td><td>${escapeHtml(type + enumValues)}${range ? `<br><span class="muted">${escapeHtml(range)}</span>` : ''}</td><td>${p.required ? 'yes' : 'no'}</td><td>${escapeHtml(fallback)}</td><td>${prose(p.description ?? '')}</td></tr>`;
    })
    .join('');
  return `<h4>Parameters</h4><table><tr><th>Name</th><th>In</th><th>Type</th><th>Required</th><th>Default</th><th>Description</th></tr>${rows}</table>`;
}

function authLine(op: OperationObject): string {
  if (op.security.length === 0) return 'No authentication.';
  if (op.security.some((s) => 'adminToken' in s)) return 'Admin token: <code>Authorization: Bearer &lt;ADMIN_TOKEN&gt;</code>.';
  return 'API key: <code>Authorization: Bearer sk_test_…</code> (or <code>sk_live_…</code>); optional <code>X-Workspace-Id</code>.';
}

function operationSection(method: string, path: string, op: OperationObject): string {
  const responses = Object.entries(op.responses)
    .map(([status, r]) => {
      const codes = r['x-error-codes'];
      const codeLinks = codes ? ` ${codes.map((c) => `<a href="${docsPath(c)}"><code>${c}</code></a>`).join(', ')}` : '';
      const schema = r.content && !codes ? jsonBlock(r.content['application/json'].schema) : '';
      return `<li><strong>${escapeHtml(status)}</strong> ${codes ? 'Error:' : escapeHtml(r.description)}${codeLinks}${schema}</li>`;
    })
    .join('');
  return `<section id="op-${escapeHtml(op.operationId)}">
<h3><span class="method ${method}">${method}</span> <code>${escapeHtml(path)}</code></h3>
<p><strong>${escapeHtml(op.summary)}</strong>${op.description ? ` — ${prose(op.description)}` : ''}</p>
<p class="muted">${authLine(op)}</p>
${parametersTable(op.parameters)}
${op.requestBody ? `<h4>Request body (application/json)</h4>${jsonBlock(op.requestBody.content['application/json'].schema)}` : ''}
<h4>Responses</h4><ul>${responses}</ul>
</section>`;
}

function errorCodesTable(): string {
  const rows = (Object.keys(ERROR_CATALOG) as ErrorCode[])
    .map((code) => {
      const entry = ERROR_CATALOG[code];
      return `<tr><td><a href="${docsPath(code)}"><code>${code}</code></a></td><td>${entry.http}</td><td>${escapeHtml(entry.title)}</td><td>${prose(entry.message)}</td></tr>`;
    })
    .join('');
  return `<table><tr><th>Code</th><th>HTTP</th><th>Title</th><th>Message</th></tr>${rows}</table>`;
}

export function renderReferencePage(doc: OpenApiDocument): string {
  const operations: { tag: string; method: string; path: string; op: OperationObject }[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) operations.push({ tag: op.tags[0] ?? 'Other', method, path, op });
  }
  const toc = operations
    .map(
      ({ method, path, op }) => `<li><a href="#op-${escapeHtml(op.operationId)}"><span class="method ${method}">${method}</span> ${escapeHtml(path)}</a></li>`,
    )
    .join('');
  const sections = doc.tags
    .map((tag) => {
      const ops = operations.filter((o) => o.tag === tag.name);
      if (ops.length === 0) return '';
      return `<h2 id="tag-${escapeHtml(tag.name)}">${escapeHtml(tag.name)}</h2>${tag.description ? `<p>${prose(tag.description)}</p>` : ''}${ops.map((o) => operationSection(o.method, o.path, o.op)).join('')}`;
    })
    .join('');
  const webhooks = Object.entries(doc.webhooks)
    .map(
      ([type, { post }]) => `<section id="webhook-${escapeHtml(type)}">
<h3><span class="method post">post</span> <code>${escapeHtml(type)}</code></h3>
<p>${prose(post.description)}</p>
${parametersTable(post.parameters)}
<h4>Body (application/json)</h4>${jsonBlock(post.requestBody.content['application/json'].schema)}
<h4>Your answer</h4><ul>${Object.entries(post.responses)
        .map(([status, r]) => `<li><strong>${escapeHtml(status)}</strong> ${prose(r.description)}</li>`)
        .join('')}</ul>
</section>`,
    )
    .join('');
  const schemas = Object.entries(doc.components.schemas)
    .map(([name, schema]) => `<h3 id="schema-${escapeHtml(name)}">${escapeHtml(name)}</h3>${jsonBlock(schema)}`)
    .join('');
  return page(
    `${doc.info.title} reference`,
    `<h1>${escapeHtml(doc.info.title)}</h1>
<p class="muted">Version ${escapeHtml(doc.info.version)} · OpenAPI 3.1 document: <a href="/v1/openapi.json">/v1/openapi.json</a></p>
<p>${prose(doc.info.description)}</p>
<h2>Authentication</h2>
<p>Send <code>Authorization: Bearer &lt;API_KEY&gt;</code>. Keys begin with <code>sk_test_</code> or <code>sk_live_</code> and belong to one workspace.
<code>X-Workspace-Id</code> is optional; when sent it must name the key's workspace. Missing key: 401 <code>authentication_required</code>;
malformed, unknown or revoked key: 401 <code>invalid_api_key</code>; another workspace: 403 <code>workspace_mismatch</code>.</p>
<h2 id="modes">Test mode and live mode</h2>
<p>Test mode is a sandbox. A workspace's <code>sk_test_</code> keys see and change only its test data, its <code>sk_live_</code> keys only its
live data: listings (imported from PMS accounts the operator connects per mode), reservations, guests, conversations, reviews, webhook
subscriptions and the events they receive (test events carry <code>"livemode": false</code>). An id of the other mode is
<code>404 not_found</code>. Each mode counts its own active listings against the plan's limit.</p>
<h2 id="rate-limits">Rate limits</h2>
<p>Each API key and each workspace (per mode) has a sustained rate per second plus a burst allowance refilled every 10 seconds, and a
workspace may have a limited number of requests in progress at once; the values are the workspace plan's (defaults:
${D.keyRequestsPerSecond}/s and ${D.keyBurst} per key, ${D.workspaceRequestsPerSecond}/s and ${D.workspaceBurst} per workspace, ${D.workspaceConcurrency} concurrent). Every authenticated response carries <code>RateLimit-Limit</code>,
<code>RateLimit-Remaining</code> and <code>RateLimit-Reset</code> (seconds) for the tightest limit; a refused request is
<code>429 rate_limited</code> with <code>Retry-After</code>. Repeated failed authentication from one address is refused with 429 for a minute.</p>
<h2>Errors</h2>
<p>Every error has the body <code>{ "error": { code, message, fix, docs_url, request_id } }</code>; <code>request_id</code> equals the
<code>X-Request-Id</code> response header. <code>listing_inactive</code> adds <code>listing_ids</code> and <code>listings</code>;
<code>pms_write_unsupported</code> adds <code>provider</code>; <code>validation_failed</code> adds <code>fields</code>.</p>
${errorCodesTable()}
<h2>Endpoints</h2><nav><ul>${toc}</ul></nav>
${sections}
<h2 id="webhooks">Webhooks</h2>
<p>Requests this API sends to your subscribed endpoints (see the Webhooks endpoints above and docs/webhooks.md): verify <code>Vrp-Signature</code>, de-duplicate on <code>Vrp-Event-Id</code>.</p>
${webhooks}
<h2 id="schemas">Schemas</h2>${schemas}`,
  );
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

function exampleEnvelope(code: ErrorCode, baseUrl: string): Record<string, unknown> {
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
<p>HTTP ${entry.http}, with <code>X-Request-Id</code> equal to <code>error.request_id</code>.</p>
${jsonBlock(exampleEnvelope(code, baseUrl))}`,
  );
}
