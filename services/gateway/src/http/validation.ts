// Input validation from a route's zod schemas. Every failure becomes one validation_failed
// naming each bad parameter (`fields`), with messages written for API users rather than
// zod's internal wording.
import { z } from 'zod';
import { validationFailed } from '@vrp/platform';
import type { Route } from './route';
import type { ValidatedInput } from './request-state';
import { integerQueryParams } from './schemas';

type Location = 'query' | 'params' | 'body';

function fieldName(location: Location, path: readonly PropertyKey[]): string {
  if (path.length === 0) return location;
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`))
    .join('');
}

const TYPE_LABELS: Record<string, string> = { int: 'an integer', number: 'a number', string: 'a string', boolean: 'a boolean', object: 'an object', array: 'an array' };

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

export function issuesToFields(location: Location, issues: readonly z.core.$ZodIssue[]): Record<string, string> {
  const fields: Record<string, string> = {};
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
  const fields: Record<string, string> = {};
  if (!(schema instanceof z.ZodObject) || typeof raw !== 'object' || raw === null) return fields;
  for (const [name, param] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const value = (raw as Record<string, unknown>)[name];
    if (value === undefined || !integerQueryParams.has(param)) continue;
    if (typeof value !== 'string' || !/^-?\d{1,15}$/.test(value)) fields[fieldName('query', [name])] = 'must be an integer';
  }
  return fields;
}

/** Validates params, query and body together, so one response names every problem. */
export function validateRouteInput(route: Route, raw: { query: unknown; params: unknown; body: unknown }): ValidatedInput {
  const fields: Record<string, string> = {};
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
