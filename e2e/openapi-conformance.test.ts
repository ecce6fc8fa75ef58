// The served OpenAPI document against real traffic: Stoplight Prism, as a validating proxy in
// front of the stack, checks every request and every answer of the reference-examples scenario
// (support/api-examples.ts: every operation, its success and its typical errors) against the
// document. Any answer that breaks its schema fails, and so does any request the document and
// the server judge differently: one the document refuses but the server accepted, or one the
// server refused as invalid while the document allows it.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { recordExamples } from './support/api-examples';
import { eventually, startTestStack, type TestStack } from './support/stack';

interface Violation {
  location: string[];
  severity: string;
  message: string;
}

/**
 * Server refusals the document cannot state in JSON Schema: rules across fields or against
 * stored data. Each is named with the rule; everything else the server refuses with 400 must be
 * refused by the document too.
 */
const CROSS_FIELD_RULES: Record<string, string> = {
  'sendMessage validation_failed': 'an empty body only with attachments',
  // OpenAPI cannot close a query string: an unknown parameter is allowed by any document.
  'getOpenApiDocument validation_failed': 'unknown query parameters are refused',
};

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('OpenAPI conformance of real traffic (Prism validating proxy)', () => {
  let t: TestStack;
  const prisms: ChildProcess[] = [];
  let proxyUrl: string;
  let adminProxyUrl: string;

  /** A Prism validating proxy of the document in front of `upstream`; resolves with its URL once it listens. */
  async function prismBefore(upstream: string, probe: string): Promise<string> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    prisms.push(
      spawn(
        process.execPath,
        [
          require.resolve('@stoplight/prism-cli/dist/index.js'),
          'proxy',
          join(__dirname, '../sdk/typescript/openapi.json'),
          upstream,
          '--port',
          String(port),
          '--errors',
          'false',
        ],
        { stdio: 'ignore' },
      ),
    );
    await eventually(async () => (await fetch(`${url}${probe}`)).status > 0, 30_000, 'Prism to listen');
    return url;
  }

  beforeAll(async () => {
    t = await startTestStack({ demoPms: true });
    // The public API and the admin API (the gateway's private listener) each behind a proxy.
    [proxyUrl, adminProxyUrl] = await Promise.all([prismBefore(t.baseUrl, '/v1/openapi.json'), prismBefore(t.adminBaseUrl, '/healthz')]);
  }, 60_000);
  afterAll(async () => {
    for (const prism of prisms) prism.kill();
    await t?.stop();
  });

  it('finds no violation in the requests and answers of every operation', async () => {
    const problems: string[] = [];
    let exchanges = 0;
    await recordExamples(t, {
      baseUrl: proxyUrl,
      adminBaseUrl: adminProxyUrl,
      observe: (operationId, x, headers) => {
        exchanges++;
        const violations = JSON.parse(headers.get('sl-violations') ?? '[]') as Violation[];
        const at = `${operationId} "${x.summary}" (${x.status})`;
        for (const v of violations.filter((v) => v.location[0] === 'response')) problems.push(`${at} answer: ${v.location.join('.')} ${v.message}`);
        const requestViolations = violations.filter((v) => v.location[0] === 'request' && v.severity === 'Error');
        const refused = x.status === 400 || x.status === 401;
        if (!refused) for (const v of requestViolations) problems.push(`${at} request the server accepted: ${v.location.join('.')} ${v.message}`);
        const code = (x.response as { error?: { code?: string } }).error?.code;
        if (code === 'validation_failed' && requestViolations.length === 0 && !CROSS_FIELD_RULES[`${operationId} ${x.summary}`]) {
          problems.push(`${at} refused by the server, allowed by the document: ${JSON.stringify(x.request)}`);
        }
      },
    });
    expect(exchanges).toBeGreaterThan(120);
    expect(problems).toEqual([]);
  }, 120_000);
});
