// Examples of the reference, from real exchanges with a running stack (openapi-examples.json,
// recorded by e2e/support/api-examples.ts and checked against new recordings by
// e2e/api-examples.test.ts): each operation gets its request body example, one response example
// per recorded answer (success and typical errors) and code samples (curl and the TypeScript SDK)
// of its recorded success request.
import recorded from './openapi-examples.json';
import type { ErrorCode } from '@vrp/platform/errors';
import type { OperationObject, ParameterObject } from './openapi';

interface Exchange {
  summary: string;
  request: { method: string; path: string; query?: Record<string, string>; auth: string; headers?: Record<string, string>; body?: unknown };
  status: number;
  response: unknown;
}

const EXCHANGES = recorded as unknown as Record<string, Exchange[]>;

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

function curlOf(x: Exchange): string {
  const query = x.request.query ? `?${new URLSearchParams(x.request.query).toString()}` : '';
  // The admin API is served on the gateway's private listener, not at the public base URL.
  const base = x.request.auth === 'admin' ? '$VRP_ADMIN_URL' : '$VRP_BASE_URL';
  const lines = [`curl -X ${x.request.method} "${base}${x.request.path}${query}"`];
  if (x.request.auth === 'api_key') lines.push('-H "Authorization: Bearer $VRP_API_KEY"');
  if (x.request.auth === 'admin') lines.push('-H "Authorization: Bearer $ADMIN_TOKEN"');
  for (const [name, value] of Object.entries(x.request.headers ?? {})) lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (x.request.body !== undefined) lines.push(`-H 'Content-Type: application/json'`, `-d ${shellQuote(JSON.stringify(x.request.body))}`);
  return lines.join(' \\\n  ');
}

/** `{id}` values of a concrete path, read against its template. */
function pathValues(template: string, path: string): Record<string, string> {
  const names = template.split('/');
  const values = path.split('/');
  return Object.fromEntries(names.flatMap((segment, i) => (segment.startsWith('{') ? [[segment.slice(1, -1), values[i] ?? '']] : [])));
}

/** A query value as the SDK's types want it: numbers and booleans unquoted. */
function queryValue(raw: string, parameter: ParameterObject | undefined): unknown {
  const type = parameter?.schema.type;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (type === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

/** A JS literal (JSON with bare keys where they are identifiers), indented for the snippet. */
function literal(value: unknown, indent: string): string {
  return JSON.stringify(value, null, 2)
    .replace(/"([A-Za-z_$][A-Za-z0-9_$]*)":/g, '$1:')
    .split('\n')
    .join(`\n${indent}`);
}

/** A sample's read of the reader's environment (text of the sample: the gateway reads none of these). */
const fromEnv = (name: string): string => `process.env.${name}!`;

function sdkOf(template: string, x: Exchange, op: OperationObject): string {
  const client = x.request.auth === 'admin' ? 'admin' : 'vrp';
  const key = fromEnv(x.request.auth === 'admin' ? 'ADMIN_TOKEN' : 'VRP_API_KEY');
  const params: Record<string, unknown> = {};
  const path = pathValues(template, x.request.path);
  if (Object.keys(path).length > 0) params.path = path;
  if (x.request.query) {
    params.query = Object.fromEntries(
      Object.entries(x.request.query).map(([name, raw]) => [
        name,
        queryValue(
          raw,
          op.parameters.find((p) => p.in === 'query' && p.name === name),
        ),
      ]),
    );
  }
  const init: Record<string, unknown> = {};
  if (Object.keys(params).length > 0) init.params = params;
  if (x.request.body !== undefined) init.body = x.request.body;
  if (x.request.headers) init.headers = x.request.headers;
  const args = Object.keys(init).length > 0 ? `'${template}', ${literal(init, '')}` : `'${template}'`;
  return [
    `import { Vrp } from '@vrp/sdk';`,
    ``,
    `const ${client} = new Vrp({ baseUrl: ${fromEnv('VRP_BASE_URL')}, apiKey: ${key} });`,
    `const answer = await ${client}.${x.request.method.toLowerCase()}(${args});`,
    `console.log(answer);`,
  ].join('\n');
}

/** Adds the recorded examples and code samples to an operation (in place); operations without any are left as they are. */
export function addExamples(template: string, op: OperationObject): void {
  const exchanges = EXCHANGES[op.operationId];
  const success = exchanges?.find((x) => x.status < 300);
  if (!exchanges || !success) return;
  op['x-codeSamples'] = [
    { lang: 'Shell', label: 'curl', source: curlOf(success) },
    { lang: 'TypeScript', label: 'SDK', source: sdkOf(template, success, op) },
  ];
  const media = op.requestBody?.content['application/json'];
  if (media && success.request.body !== undefined) media.examples = { [exampleKey(success)]: { summary: success.summary, value: success.request.body } };
  for (const x of exchanges) {
    const content = op.responses[String(x.status)]?.content?.['application/json'];
    if (!content) continue;
    content.examples = { ...content.examples, [exampleKey(x)]: { summary: x.summary, value: x.response } };
  }
}

/** Example names: the error code of an error, else the summary as an identifier. */
function exampleKey(x: Exchange): string {
  const code = (x.response as { error?: { code?: string } }).error?.code;
  return code ?? x.summary.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '');
}

/** A recorded answer with this error code, if the scenario produced one (the error pages show it). */
export function recordedError(code: ErrorCode): { error: { code: ErrorCode } } | undefined {
  for (const exchanges of Object.values(EXCHANGES)) {
    const found = exchanges.find((x) => (x.response as { error?: { code?: string } }).error?.code === code);
    if (found) return found.response as { error: { code: ErrorCode } };
  }
  return undefined;
}
