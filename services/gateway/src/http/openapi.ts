// The OpenAPI 3.1 document, generated from the route table and its zod schemas (zod 4's
// z.toJSONSchema, draft 2020-12 = OpenAPI 3.1's dialect). Request schemas are converted as
// inputs (defaults make fields optional), responses as outputs. Schemas registered in
// `componentSchemas` are emitted once under #/components/schemas and referenced.
import { z } from 'zod';
import { EVENT_TYPES, type EventType, componentSchemas, webhookEventSchemas } from '@vrp/api-model';
import { ERROR_CATALOG, docsPath, type ErrorCode } from '@vrp/platform/errors';
import { DEFAULT_RATE_LIMITS as D } from '../domain/rate-limits';
import { IDEMPOTENCY_HEADER } from './middleware/idempotency';
import { addExamples, type CodeSample } from './openapi-examples';
import { DRY_RUN_PARAM, pathParamNames, type Route } from './route';

export type JsonSchema = Record<string, unknown>;

export interface ParameterObject {
  name: string;
  in: 'query' | 'path' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

export type ExamplesObject = Record<string, { summary: string; value: unknown }>;

export interface ResponseObject {
  description: string;
  headers?: Record<string, { $ref: string }>;
  content?: { 'application/json': { schema: JsonSchema; examples?: ExamplesObject } };
  /** Error responses: the catalog codes this status stands for on this operation. */
  'x-error-codes'?: ErrorCode[];
}

export interface OperationObject {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: Record<string, string[]>[];
  parameters: ParameterObject[];
  requestBody?: { required: boolean; content: { 'application/json': { schema: JsonSchema; examples?: ExamplesObject } } };
  responses: Record<string, ResponseObject>;
  /** Example requests (curl and the TypeScript SDK), as Redoc and other renderers show them. */
  'x-codeSamples'?: CodeSample[];
  /** Where the operation is served when not at the document's servers (the admin API). */
  servers?: { url: string; description: string; variables?: Record<string, { default: string; description: string }> }[];
}

export interface WebhookOperationObject {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security: Record<string, string[]>[];
  parameters: ParameterObject[];
  requestBody: { required: true; content: { 'application/json': { schema: JsonSchema } } };
  responses: Record<string, { description: string }>;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  jsonSchemaDialect: string;
  info: { title: string; version: string; description: string; license: { name: string; identifier: string } };
  servers: { url: string; description: string }[];
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, OperationObject>>;
  /** OpenAPI 3.1 webhooks: the requests this API sends to subscribed endpoints, one per event type. */
  webhooks: Record<string, { post: WebhookOperationObject }>;
  components: {
    schemas: Record<string, JsonSchema>;
    securitySchemes: Record<string, Record<string, string>>;
    headers: Record<string, { description: string; schema: JsonSchema }>;
  };
}

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const COMPONENT_PREFIX = '#/components/schemas/';
/** What `Idempotency-Key` guarantees (the introduction's section; each write's parameter refers to it). */
const IDEMPOTENCY_TEXT =
  'Every POST and PATCH honours an `Idempotency-Key` header. ' +
  "Scoped to the workspace and bound to the method, path and body. The first request's outcome is recorded whatever the client does (a dropped connection included); a retry with the same key and body gets the same status and body with `Idempotent-Replayed: true` for 24 hours; a retry while the first still runs is 409 idempotency_in_progress with `Retry-After`; the same key with another method, path or body is 409 idempotency_conflict. 5xx outcomes are not recorded (a retry runs again). Behind the gateway, the service stores the key with the write in the same transaction (24 hours), so a retry the gateway cannot answer (its record lost in a crash, or a 5xx whose write committed) answers the first outcome and writes, publishes and relays to a PMS nothing a second time; there too the same key with another request is 409 idempotency_conflict. (Admin API: creating a workspace is covered the same way; issuing an API key relies on the gateway's record only, as the key is kept hashed.)";

/** What `?dry_run=true` does (the introduction's section; each write's parameter refers to it). */
const DRY_RUN_TEXT =
  'Every write (POST, PUT, PATCH, DELETE) accepts `?dry_run=true`: the request is decided exactly as the real write would be (validation, 404, `403 listing_inactive`, `422 pms_write_unsupported`, `409 dates_unavailable`, `402 listings_limit_exceeded`, `412 precondition_failed`...), and answers the same status and error envelope, or `200` with the record as it would be written (for content writes, with `applied` and `deferred` per section), but nothing is written, nothing is sent to a PMS, no event is published and no webhook fires. An `Idempotency-Key` is neither recorded nor looked up; rate limits count the request. Ids and codes a create would assign are shown but not reserved. A PMS may still refuse the real write for a reason of its own (`502 pms_unavailable`): the dry run decides from the capability matrix, as the real write does before anything is sent.';

/** Input schemas are always inlined: a request shape is not the same as its output shape. */
const inlineOnly = z.registry<{ id?: string }>();

/** Every tag of the route table has a description (a tag without one fails this module's test and `redocly lint`). */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Listings: 'Listings of the workspace, their active/inactive status and what their PMS supports.',
  Properties: 'The listings collection under its other name.',
  Availability: 'Calendars: nightly availability, prices and minimum stays, read per listing and written in batches.',
  Content: 'Descriptions, amenities, house rules, rooms, translations and photos of a listing, and their publication to its PMS.',
  Reservations: 'Quotes, bookings, changes and cancellations; a night is booked by one reservation only.',
  Guests: 'Guest profiles, matched by email or phone and linked to the PMS guest where there is one.',
  Conversations: 'Message threads with guests and the messages in them.',
  Requests: 'Booking requests and inquiries from channels: accept, decline or pre-approve.',
  Reviews: 'Guest reviews of listings and the host replies.',
  Connect: 'What each PMS supports, before connecting an account.',
  Admin: 'Operator API: workspaces, plans, API keys, PMS connections and dead letters. Needs the admin token.',
  Webhooks: 'Subscriptions to events, their signing secrets and delivery log.',
  Events: 'The events the webhooks deliver, to pull: the last 30 days, the same objects and ids as the deliveries.',
  Meta: 'This reference.',
};

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content' };

/** JSON Schema keywords taken from a schema's `.meta()`: what its refinements check, for the document's readers and validators. */
const META_KEYWORDS = ['minProperties', 'pattern', 'enum', 'format'] as const;

type OverrideContext = { zodSchema: z.core.$ZodType; jsonSchema: z.core.JSONSchema.BaseSchema };

function tidyFor(io: 'input' | 'output') {
  return (ctx: OverrideContext): void => {
    const json = ctx.jsonSchema;
    // `.describe()` lands in zod's global registry; pick it up even when another registry supplies ids.
    const meta = z.globalRegistry.get(ctx.zodSchema);
    if (meta?.description !== undefined && json.description === undefined) json.description = meta.description;
    // Keywords a schema states with `.meta()` where zod cannot derive them from a refinement or a transform.
    const target = json as Record<string, unknown>;
    for (const keyword of META_KEYWORDS) if (meta?.[keyword] !== undefined) target[keyword] = meta[keyword];
    // `format: date-time` says it all; zod's long validation regex adds nothing for readers.
    if (json.format === 'date-time') delete json.pattern;
    // z.number().int() implies the safe-integer range; spelling it out is noise.
    if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
    if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
    // Responses may gain fields over time (additive changes are not breaking), so response
    // objects are not declared closed. Request objects stay closed: unknown fields are refused.
    if (io === 'output' && json.additionalProperties === false) delete json.additionalProperties;
    // A discriminated union names its discriminator, so renderers and generators can tell its branches apart.
    const def = ctx.zodSchema._zod.def as { type: string; discriminator?: string };
    if (def.type === 'union' && typeof def.discriminator === 'string' && Array.isArray(json.oneOf)) json.discriminator = { propertyName: def.discriminator };
  };
}

/** Rewrites `#/$defs/X` to the shared components, dropping the per-schema `$defs`. */
function relocateRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(relocateRefs);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$defs' || key === '$schema' || key === '$id') continue;
    out[key] = key === '$ref' && typeof inner === 'string' ? inner.replace(/^#\/\$defs\//, COMPONENT_PREFIX) : relocateRefs(inner);
  }
  return out;
}

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const id = io === 'output' ? componentSchemas.get(schema)?.id : undefined;
  if (id) return { $ref: `${COMPONENT_PREFIX}${id}` };
  const json = z.toJSONSchema(schema, { io, target: 'draft-2020-12', metadata: io === 'output' ? componentSchemas : inlineOnly, override: tidyFor(io) });
  return relocateRefs(json) as JsonSchema;
}

function componentsOf(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(componentSchemas, {
    io: 'output',
    target: 'draft-2020-12',
    uri: (id) => `${COMPONENT_PREFIX}${id}`,
    override: tidyFor('output'),
  });
  return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, relocateRefs(schema) as JsonSchema]));
}

/** Express `:id` -> OpenAPI `{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function parametersOf(schema: z.ZodType, location: 'query' | 'path'): ParameterObject[] {
  const json = jsonSchemaOf(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    };
  });
}

/** A write of an existing versioned record (not its create, not a read) takes If-Match. */
const takesIfMatch = (route: Route): boolean => route.versioned && route.method !== 'get' && pathParamNames(route.path).length > 0;

/** The catalog codes an operation can answer, beyond its declared successes. */
function errorCodesOf(route: Route): ErrorCode[] {
  const codes = new Set<ErrorCode>(['validation_failed', 'internal_error']);
  if (route.body) ['invalid_json', 'unsupported_media_type', 'unsupported_encoding', 'payload_too_large'].forEach((c) => codes.add(c as ErrorCode));
  if (route.auth === 'api_key') ['authentication_required', 'invalid_api_key', 'workspace_mismatch'].forEach((c) => codes.add(c as ErrorCode));
  if (route.auth === 'admin') codes.add('admin_token_invalid');
  // Every route behind authentication reaches the store or an upstream service.
  if (route.auth !== 'none') ['service_unavailable', 'upstream_timeout'].forEach((c) => codes.add(c as ErrorCode));
  codes.add('rate_limited');
  if (route.idempotent) ['idempotency_conflict', 'idempotency_in_progress'].forEach((c) => codes.add(c as ErrorCode));
  if (takesIfMatch(route)) codes.add('precondition_failed');
  route.errors.forEach((c) => codes.add(c));
  return [...codes];
}

function errorResponses(route: Route): Record<string, ResponseObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route)) {
    const status = ERROR_CATALOG[code].http;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, ResponseObject> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[String(status)] = {
      description: `Error: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
      headers: {
        'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
        ...(status === 503 || status === 429 || codes.includes('idempotency_in_progress')
          ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } }
          : {}),
        ...rateLimitHeaders(),
      },
      content: { 'application/json': { schema: { $ref: `${COMPONENT_PREFIX}ErrorEnvelope` } } },
      'x-error-codes': codes,
    };
  }
  return out;
}

/** RateLimit-* (IETF draft fields) on every response (a public route counts per client address). */
function rateLimitHeaders(): Record<string, { $ref: string }> {
  return Object.fromEntries(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'].map((h) => [h, { $ref: `#/components/headers/${h}` }]));
}

function securityOf(route: Route): Record<string, string[]>[] {
  switch (route.auth) {
    case 'api_key':
      // X-Workspace-Id is optional: the key already names its workspace.
      return [{ apiKey: [], workspaceId: [] }, { apiKey: [] }];
    case 'admin':
      return [{ adminToken: [] }];
    case 'none':
      return [];
  }
}

/**
 * The router reads an absent body as `{}` (validation.ts), so a body is required exactly when
 * `{}` is refused: operations whose fields are all optional take no body at all.
 */
function bodyRequired(body: z.ZodType): boolean {
  return !body.safeParse({}).success;
}

function operationOf(route: Route): OperationObject {
  const parameters = [...parametersOf(route.params, 'path'), ...parametersOf(route.query, 'query')];
  if (route.idempotent) {
    parameters.push({
      name: IDEMPOTENCY_HEADER,
      in: 'header',
      required: false,
      description: 'Makes a retry safe: the same key and body answer the first outcome, once (see Idempotency in the introduction).',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  if (route.dryRunnable) {
    parameters.push({
      name: DRY_RUN_PARAM,
      in: 'query',
      required: false,
      description:
        'true: answer what this write would do (same status and error, or 200 with the record as it would be written), writing, relaying and publishing nothing (see Dry runs in the introduction).',
      schema: { type: 'string', enum: ['true', 'false'] },
    });
  }
  if (takesIfMatch(route)) {
    parameters.push({
      name: 'If-Match',
      in: 'header',
      required: false,
      description:
        'The `ETag` of the record as you read it: when the record has changed since, nothing is changed and the answer is 412 precondition_failed. Without it, only the fields sent are written, against the current record.',
      schema: { type: 'string' },
    });
  }
  const responses: Record<string, ResponseObject> = {};
  for (const [status, schema] of Object.entries(route.responses)) {
    responses[status] = {
      description: STATUS_TEXT[Number(status)] ?? 'Success',
      headers: {
        'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
        ...(route.versioned ? { ETag: { $ref: '#/components/headers/ETag' } } : {}),
        ...rateLimitHeaders(),
      },
      content: { 'application/json': { schema: jsonSchemaOf(schema, 'output') } },
    };
  }
  // A dry run answers 200 with what a 201 or 202 would carry.
  const accepted = route.responses[201] ?? route.responses[202];
  if (route.dryRunnable && !route.responses[200] && accepted) {
    responses['200'] = {
      description: 'Dry run (`dry_run=true`): what the write would answer, nothing written.',
      headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...rateLimitHeaders() },
      content: { 'application/json': { schema: jsonSchemaOf(accepted, 'output') } },
    };
  }
  Object.assign(responses, errorResponses(route));
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: route.tags,
    security: securityOf(route),
    parameters,
    ...(route.body
      ? { requestBody: { required: bodyRequired(route.body), content: { 'application/json': { schema: jsonSchemaOf(route.body, 'input') } } } }
      : {}),
    responses,
  };
}

/** Headers of every delivery (docs/webhooks.md, "Verifying signatures"). */
const DELIVERY_HEADERS: ParameterObject[] = [
  {
    name: 'Vrp-Signature',
    in: 'header',
    required: true,
    description:
      '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the signing secret>`; during a secret rotation one `v1` per valid secret. Verify it, and refuse a `t` outside your tolerance (e.g. 5 minutes).',
    schema: { type: 'string' },
  },
  {
    name: 'Vrp-Event-Id',
    in: 'header',
    required: true,
    description: "The event id (the body's `id`): de-duplicate on it, deliveries are at least once.",
    schema: { type: 'string' },
  },
  { name: 'Vrp-Event-Type', in: 'header', required: true, description: 'The event type.', schema: { type: 'string' } },
  { name: 'Vrp-Delivery-Id', in: 'header', required: true, description: 'This delivery (a replay has a new one).', schema: { type: 'string' } },
  {
    name: 'Vrp-Delivery-Attempt',
    in: 'header',
    required: true,
    description: '1 for the first attempt, 2 for the first retry, ...',
    schema: { type: 'integer', minimum: 1 },
  },
];

function webhooksOf(): OpenApiDocument['webhooks'] {
  const out: OpenApiDocument['webhooks'] = {};
  for (const type of Object.keys(EVENT_TYPES) as EventType[]) {
    out[type] = {
      post: {
        operationId: `webhook_${type.replace('.', '_')}`,
        summary: type,
        description: `${EVENT_TYPES[type]} Sent to every enabled subscription of the workspace that asked for \`${type}\` (or every type), signed, at least once, in order per listing; never for an inactive listing. See docs/webhooks.md.`,
        tags: ['Webhooks'],
        security: [{ webhookSignature: [] }],
        parameters: DELIVERY_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema: jsonSchemaOf(webhookEventSchemas[type], 'output') } } },
        responses: {
          '2XX': { description: 'Acknowledged. Answer quickly (within 10 s) and do the work afterwards.' },
          default: { description: 'Any other status, a timeout or a refused connection is a failed attempt, retried with backoff for about three days.' },
        },
      },
    };
  }
  return out;
}

/** The introduction of the reference (Markdown; its headings are sections of the renderer's navigation). */
function introduction(): string {
  const errorRows = (Object.keys(ERROR_CATALOG) as ErrorCode[])
    .map((code) => `| [\`${code}\`](${docsPath(code)}) | ${ERROR_CATALOG[code].http} | ${ERROR_CATALOG[code].title} |`)
    .join('\n');
  return `HTTP/JSON API over a workspace's listings, reservations and guests, with a TypeScript SDK built on this document (\`sdk/typescript\` in the repository: typed calls, retries, idempotency keys, typed errors, pagination, webhook verification).

The examples are real exchanges with a running stack. Their code samples read \`VRP_BASE_URL\` (this server), \`VRP_API_KEY\` and, on the admin API, \`VRP_ADMIN_URL\` (the gateway's private listener, which serves the admin API) and \`ADMIN_TOKEN\` from the environment.

# Authentication

Send \`Authorization: Bearer <API_KEY>\`. Keys begin with \`sk_test_\` or \`sk_live_\` and belong to one workspace. \`X-Workspace-Id\` is optional; when sent it must name the key's workspace. Missing key: 401 \`authentication_required\`; malformed, unknown or revoked key: 401 \`invalid_api_key\`; another workspace: 403 \`workspace_mismatch\`. The admin API (\`/admin/v1\`) takes the operator token instead.

# Test mode and live mode

Test mode is a sandbox. A workspace's \`sk_test_\` keys see and change only its test data, its \`sk_live_\` keys only its live data: listings, reservations, guests, conversations, reviews, webhook subscriptions and the events they receive (test events carry \`"livemode": false\`). An id of the other mode is \`404 not_found\`. Each mode counts its own active listings against the plan's limit.

# Rate limits

Each API key and each workspace (per mode) has a sustained rate per second plus a burst allowance refilled every 10 seconds, and a workspace may have a limited number of requests in progress at once; the values are the workspace plan's (defaults: ${D.keyRequestsPerSecond}/s and ${D.keyBurst} per key, ${D.workspaceRequestsPerSecond}/s and ${D.workspaceBurst} per workspace, ${D.workspaceConcurrency} concurrent). Every authenticated response carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`; a refused request is \`429 rate_limited\` with \`Retry-After\`.

# Idempotency

${IDEMPOTENCY_TEXT}

# Dry runs

${DRY_RUN_TEXT}

# Absent values

Absent values are \`null\`, never an empty string or a missing field: a field a schema marks nullable is present with \`null\` when it has no value.

# Errors

Every error has the body \`{ "error": { code, message, fix, docs_url, request_id } }\` (\`ErrorEnvelope\`); \`request_id\` equals the \`X-Request-Id\` response header. \`listing_inactive\` adds \`listing_ids\` and \`listings\`, \`pms_write_unsupported\` adds \`provider\`, \`validation_failed\` adds \`fields\`, \`dates_unavailable\` adds \`conflicts\`. Each code has its page:

| Code | HTTP | Title |
|---|---|---|
${errorRows}
`;
}

/** The deployment's own base URL (PUBLIC_BASE_URL, else where the gateway listens). */
export function serversOf(serverUrl: string): OpenApiDocument['servers'] {
  return [{ url: serverUrl, description: 'This deployment (PUBLIC_BASE_URL).' }];
}

/**
 * Where the admin API is served: the gateway's private listener (GATEWAY_ADMIN_PORT), which no
 * public Ingress routes; the public base URL answers its paths 404.
 */
const ADMIN_SERVERS = [
  {
    url: '{adminBaseUrl}',
    description:
      "The gateway's private listener (GATEWAY_ADMIN_PORT, 9160 by default): reachable inside the deployment, or through an admin Ingress of the operator's.",
    variables: { adminBaseUrl: { default: 'http://localhost:9160', description: 'Base URL of the private listener.' } },
  },
];

export function buildOpenApiDocument(routes: readonly Route[], opts: { serverUrl: string; version?: string }): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    const operation = operationOf(route);
    addExamples(path, operation);
    if (route.path.startsWith('/admin/')) operation.servers = ADMIN_SERVERS;
    paths[path] = { ...paths[path], [route.method]: operation };
  }
  const tagNames = [...new Set(routes.flatMap((r) => r.tags))];
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: DIALECT,
    info: {
      title: 'Reservations, Guests and Listings API',
      version: opts.version ?? '1.0.0',
      description: introduction(),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: serversOf(opts.serverUrl),
    tags: tagNames.map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}) })),
    paths,
    webhooks: webhooksOf(),
    components: {
      schemas: componentsOf(),
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'sk_test_… / sk_live_…', description: 'An API key of the workspace.' },
        workspaceId: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Workspace-Id',
          description: "Optional. When sent, it must name the API key's workspace (else 403 workspace_mismatch).",
        },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The operator token of the admin API (ADMIN_TOKEN).' },
        webhookSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'Vrp-Signature',
          description:
            'Deliveries to your endpoint are signed: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` with the subscription\'s signing secret. Verify it and the timestamp (docs/webhooks.md; the SDK\'s `webhooks.verify`).',
        },
      },
      headers: {
        'X-Request-Id': {
          description: 'Identifier of this request; equals `error.request_id` of an error. A well-formed caller value is kept.',
          schema: { type: 'string' },
        },
        'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
        ETag: {
          description: 'The version of the record answered, e.g. `"3"`; send it as `If-Match` to change the record only if nobody changed it since.',
          schema: { type: 'string' },
        },
        'RateLimit-Limit': {
          description:
            'Requests per second of the tightest limit that applied (API key or workspace; per client address on the admin API); bursts above it are allowed up to the plan.',
          schema: { type: 'integer', minimum: 0 },
        },
        'RateLimit-Remaining': { description: 'Requests left in the current one-second window of that limit.', schema: { type: 'integer', minimum: 0 } },
        'RateLimit-Reset': { description: 'Seconds until that window starts again.', schema: { type: 'integer', minimum: 0 } },
      },
    },
  };
}
