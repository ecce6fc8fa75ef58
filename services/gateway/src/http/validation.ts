// Input validation from a route's zod schemas. Every failure becomes one validation_failed
// naming each bad parameter (`fields`), with messages written for API users rather than
// zod's internal wording.
import { z } from 'zod';
import { validationFailed } from '@vrp/platform/errors';
import type { Route } from './route';
import type { ValidatedInput } from './request-state';
import { integerQueryParams } from '@vrp/api-model';

type Location = 'query' | 'params' | 'body';

function fieldName(location: Location, path: readonly PropertyKey[]): string {
  if (path.length === 0) return location;
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`)).join('');
}

const TYPE_LABELS: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
};

function problemOf(issue: z.core.$ZodIssue): string {
  // Wording a schema chose itself (lower-case by our convention) wins over the generic text.
  if (/^[a-z]/.test(issue.message)) {
    if (issue.code === 'invalid_type' && (!('input' in issue) || issue.input === undefined)) return 'is required';
    return issue.message;
  }
  switch (issue.code) {
    case 'invalid_type':
      // reportInput is on: a missing value has no `input`.
      if (!('input' in issue) || issue.input === undefined) return 'is required';
      return `must be ${TYPE_LABELS[issue.expected] ?? `of type ${issue.expected}`}`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${String(issue.maximum)} characters`;
      if (issue.origin === 'array') return `must have at most ${String(issue.maximum)} items`;
      return `must be at most ${String(issue.maximum)}`;
    case 'too_small':
      if (issue.origin === 'string') return Number(issue.minimum) <= 1 ? 'must not be empty' : `must be at least ${String(issue.minimum)} characters`;
      if (issue.origin === 'array') return `must have at least ${String(issue.minimum)} items`;
      return `must be at least ${String(issue.minimum)}`;
    case 'invalid_value':
      return `must be one of: ${issue.values.map((v) => String(v)).join(', ')}`;
    case 'invalid_format':
      return `must be a valid ${issue.format}`;
    default:
      return issue.message;
  }
}

/**
 * A field map without a prototype: a client's key named `constructor` or `toString` must be a
 * field like any other, never an inherited member that `??=` or `in` would mistake for a value.
 */
function fieldMap(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

export function issuesToFields(location: Location, issues: readonly z.core.$ZodIssue[]): Record<string, string> {
  const fields = fieldMap();
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const what = location === 'body' ? 'is not a known field' : 'is not a known parameter';
      for (const key of issue.keys) fields[fieldName(location, [...issue.path, key])] = what;
      continue;
    }
    const name = fieldName(location, issue.path);
    // The first problem of a field is the one worth fixing first.
    fields[name] ??= problemOf(issue);
  }
  return fields;
}

/** Integer query parameters whose raw text is not decimal digits (an optional minus sign first). */
function nonDecimalIntegers(schema: z.ZodType, raw: unknown): Record<string, string> {
  const fields = fieldMap();
  if (!(schema instanceof z.ZodObject) || typeof raw !== 'object' || raw === null) return fields;
  for (const [name, param] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const value = Object.hasOwn(raw, name) ? (raw as Record<string, unknown>)[name] : undefined;
    if (value === undefined || !integerQueryParams.has(param)) continue;
    if (typeof value !== 'string' || !/^-?\d{1,15}$/.test(value)) fields[fieldName('query', [name])] = 'must be an integer';
  }
  return fields;
}

/** An unpaired UTF-16 surrogate (a high one not followed by a low one, or a low one alone). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when the text is NUL-free, well-formed UTF-16 (String#isWellFormed is ES2024). */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}

/** JSON nesting deeper than this is refused before any schema walks it. */
export const MAX_INPUT_DEPTH = 32;

/**
 * Text the API never stores, found anywhere in the input (values and keys): NUL characters
 * and unpaired UTF-16 surrogates (which no UTF-8 store or client can round-trip), keys named
 * `__proto__` (JSON.parse keeps them as own keys; zod's records drop them silently) and
 * nesting deeper than MAX_INPUT_DEPTH. Reported per field, before the schemas run.
 */
function hostileText(location: Location, value: unknown, fields: Record<string, string>, path: (string | number)[] = []): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) fields[fieldName(location, path)] ??= 'must not contain NUL characters';
    else if (LONE_SURROGATE.test(value)) fields[fieldName(location, path)] ??= 'must not contain unpaired UTF-16 surrogates';
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (path.length >= MAX_INPUT_DEPTH) {
    fields[fieldName(location, path)] ??= `must not nest deeper than ${MAX_INPUT_DEPTH} levels`;
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => hostileText(location, item, fields, [...path, i]));
    return;
  }
  for (const key of Object.keys(value)) {
    const at = [...path, key];
    if (key === '__proto__') fields[fieldName(location, at)] ??= location === 'body' ? 'is not a known field' : 'is not a known parameter';
    else if (!isStorableText(key))
      fields[[...fieldName(location, at)].map((c) => (isStorableText(c) ? c : '\ufffd')).join('')] ??=
        'must not contain NUL characters or unpaired UTF-16 surrogates in its name';
    else hostileText(location, (value as Record<string, unknown>)[key], fields, at);
  }
}

/** Validates params, query and body together, so one response names every problem. */
export function validateRouteInput(route: Route, raw: { query: unknown; params: unknown; body: unknown }): ValidatedInput {
  const fields = fieldMap();
  hostileText('params', raw.params, fields);
  hostileText('query', raw.query, fields);
  if (route.body) hostileText('body', raw.body, fields);
  if (Object.keys(fields).length > 0) throw validationFailed(fields);
  const parse = (location: Location, schema: z.ZodType, value: unknown): unknown => {
    const result = schema.safeParse(value, { reportInput: true });
    if (result.success) return result.data;
    // A problem found on the raw text first (see nonDecimalIntegers) is the one to report.
    for (const [name, problem] of Object.entries(issuesToFields(location, result.error.issues))) fields[name] ??= problem;
    return undefined;
  };
  const params = parse('params', route.params, raw.params);
  Object.assign(fields, nonDecimalIntegers(route.query, raw.query));
  const query = parse('query', route.query, raw.query);
  // An absent body is an empty object, so a missing required field is named, not "body".
  const body = route.body ? parse('body', route.body, raw.body ?? {}) : undefined;
  if (Object.keys(fields).length > 0) throw validationFailed(fields);
  return { query, params, body };
}
