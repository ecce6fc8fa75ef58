// The reference's examples cannot drift from the API: the scenario that recorded them
// (support/api-examples.ts) runs again against a fresh stack, and every answer must have the
// status and the shape (fields and their JSON types) of the committed example; the served
// document must carry, for every operation, code samples (curl and SDK, the SDK ones compiling
// against the SDK's types) and examples of its success and of a typical error.
import { readFileSync } from 'node:fs';
import { EXAMPLES_FILE, recordExamples, type RecordedExamples } from './support/api-examples';
import { startTestStack, type TestStack } from './support/stack';
import { compileErrors } from './support/typescript';

type Shape = string | Shape[] | { [key: string]: Shape };

/** The JSON types of a value, recursively; an array's element shapes, each once. */
function shapeOf(value: unknown): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) return [...new Map(value.map((v) => shapeOf(v)).map((s) => [JSON.stringify(s), s])).values()];
  if (typeof value === 'object') return Object.fromEntries(Object.keys(value as object).map((k) => [k, shapeOf((value as Record<string, unknown>)[k])]));
  return typeof value;
}

/** Where two shapes differ; `null` (a value absent this time) and an empty array match anything. */
function differences(a: Shape, b: Shape, at: string, out: string[] = []): string[] {
  if (a === 'null' || b === 'null') return out;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length && b.length) differences(a[0]!, b[0]!, `${at}[]`, out);
    return out;
  }
  if (typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      if (!(k in a)) out.push(`${at}.${k}: new field`);
      else if (!(k in b)) out.push(`${at}.${k}: no longer answered`);
      else differences(a[k]!, b[k]!, `${at}.${k}`, out);
    }
    return out;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${at}: ${JSON.stringify(a)} became ${JSON.stringify(b)}`);
  return out;
}

interface Operation {
  operationId: string;
  'x-codeSamples'?: { label: string; source: string }[];
  requestBody?: { content: { 'application/json': { examples?: object } } };
  responses: Record<string, { content?: { 'application/json': { examples?: Record<string, { value: unknown }> } } }>;
}

describe('the reference examples, recorded from a running stack', () => {
  let t: TestStack;
  let fresh: RecordedExamples;
  const committed = JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) as RecordedExamples;
  let operations: Operation[];

  beforeAll(async () => {
    t = await startTestStack({ demoPms: true });
    fresh = await recordExamples(t);
    const doc = (await t.api<{ paths: Record<string, Record<string, Operation>> }>('GET', '/v1/openapi.json', undefined, { key: null })).body;
    operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
  }, 60_000);
  afterAll(async () => t?.stop());

  it('answers every recorded request as committed: same status, same shape (else run `pnpm examples`)', () => {
    expect(Object.keys(fresh).sort()).toEqual(Object.keys(committed).sort());
    const drift: string[] = [];
    for (const [operationId, exchanges] of Object.entries(committed)) {
      exchanges.forEach((was, i) => {
        const now = fresh[operationId]![i]!;
        const at = `${operationId} "${was.summary}"`;
        if (now.summary !== was.summary || now.status !== was.status) drift.push(`${at}: ${was.status} became ${now.summary} ${now.status}`);
        differences(shapeOf(was.request), shapeOf(now.request), `${at} request`, drift);
        differences(shapeOf(was.response), shapeOf(now.response), `${at} response`, drift);
      });
    }
    expect(drift).toEqual([]);
  });

  it('shows, for every operation, curl and SDK samples, a success example and a typical error example', () => {
    const incomplete = operations
      .filter((op) => {
        const labels = (op['x-codeSamples'] ?? []).map((s) => s.label);
        const examples = Object.entries(op.responses).map(
          ([status, r]) => [Number(status), Object.keys(r.content?.['application/json'].examples ?? {}).length] as const,
        );
        const success = examples.some(([status, n]) => status < 300 && n > 0);
        const error = examples.some(([status, n]) => status >= 400 && n > 0);
        return !(labels.includes('curl') && labels.includes('SDK') && success && error);
      })
      .map((op) => op.operationId);
    expect(incomplete).toEqual([]);
    expect(operations.length).toBe(Object.keys(committed).length);
    // Every recorded answer is shown: its status is one the operation declares.
    for (const op of operations) {
      for (const x of committed[op.operationId]!) expect([op.operationId, String(x.status) in op.responses]).toEqual([op.operationId, true]);
    }
  });

  it("compiles every operation's SDK sample against the SDK's types", () => {
    const sources = operations.map((op) => op['x-codeSamples']!.find((s) => s.label === 'SDK')!.source);
    expect(compileErrors(sources)).toEqual([]);
  }, 60_000);
});
