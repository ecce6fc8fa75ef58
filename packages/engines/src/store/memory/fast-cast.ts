// The embedded engine's caster for schemas it fully understands: the same document mongoose's
// `new Model(doc)` + `validateSync()` + `toObject()` gives, without building a mongoose document
// (about a quarter of the webhook bench's CPU went there).
//
// It only ever says yes: for a document it gives the cast result when it is sure mongoose
// would accept the document and give that result (values already of the path's type, null,
// defaults, unknown fields dropped, every validator passing), and `undefined` otherwise, so
// that the caller asks mongoose, which then casts (e.g. "5" to 5) or reports the failure with
// its own messages and field names. A schema with anything it does not know (setters, custom
// validators, Mixed, maps, ObjectIds, single nested subdocuments, virtuals it cannot see
// through...) gets no caster at all. Output key order follows the schema, which is mongoose's
// order except where it applies some defaults after the given values (key order carries no
// meaning for the store's readers). store.fast-cast.test.ts compares it with mongoose.
import type { Schema, SchemaType } from 'mongoose';
import { isPlainObject } from '../shared';

/** A schema compiled for the fast path: the cast document, or undefined for "ask mongoose". */
export type FastCaster = (input: Record<string, unknown>) => Record<string, unknown> | undefined;

/** Thrown inside a cast: this document goes to mongoose. */
class Unsure {}
const UNSURE = new Unsure();
const ABSENT = Symbol('absent');
type Cast = (value: unknown) => unknown;

interface SchemaTypeInternals {
  instance: string;
  path: string;
  options: Record<string, unknown>;
  validators: Array<{ type?: string; validator?: unknown }>;
  setters: unknown[];
  getters: unknown[];
  isRequired?: boolean;
  defaultValue?: unknown;
  caster?: SchemaTypeInternals;
  schema?: Schema;
  $isMongooseDocumentArray?: boolean;
  $isSingleNested?: boolean;
}

const LEAF_TYPES = new Set(['String', 'Number', 'Boolean', 'Date']);
/** Schema-type options that change nothing a cast or validateSync of a new document does. */
const NEUTRAL_OPTIONS = new Set([
  'type',
  'required',
  'default',
  'enum',
  'min',
  'max',
  'minlength',
  'maxlength',
  'minLength',
  'maxLength',
  'match',
  'index',
  'unique',
  'sparse',
  'expires',
  'select',
  'alias',
  'immutable',
  '_id',
  '_skipApplyDiscriminators', // set by Schema#clone on subdocument paths; discriminators are refused below
]);
/** Built-in validators that only read the value (called with no document). */
const VALUE_VALIDATORS = new Set(['enum', 'min', 'max', 'minlength', 'maxlength', 'regexp']);

const NOT_SUPPORTED = Symbol('not supported');

/** The caster of a schema, or null when the schema uses anything this module does not know. */
export function compileFastCaster(schema: Schema): FastCaster | null {
  const object = compileObject(schema);
  if (object === NOT_SUPPORTED) return null;
  return (input) => {
    try {
      return object(input);
    } catch (err) {
      if (err === UNSURE) return undefined;
      throw err;
    }
  };
}

/** One (sub)document: its own output, minimized as its schema says (as toObject does). */
type ObjectCast = (input: unknown) => Record<string, unknown>;

interface Node {
  key: string;
  /** A leaf, array, subdocument or Mixed path. */
  cast?: Cast;
  /** A nested path's children. */
  children?: Node[];
}

function compileObject(schema: Schema): ObjectCast | typeof NOT_SUPPORTED {
  const s = schema as unknown as {
    options: Record<string, unknown>;
    paths: Record<string, SchemaType>;
    nested: Record<string, boolean>;
    virtuals: Record<string, unknown>;
    discriminators?: unknown;
  };
  if (s.options.strict !== true || s.options.toObject || s.discriminators) return NOT_SUPPORTED;
  const minimize = s.options.minimize !== false;
  // Input keys that set something else than a path of their own name (`id`, aliases).
  const virtuals = new Set(Object.keys(s.virtuals));
  if ([...virtuals].some((v) => v.includes('.'))) return NOT_SUPPORTED;
  const root: Node[] = [];
  for (const [path, type] of Object.entries(s.paths)) {
    const cast = compilePath(type as unknown as SchemaTypeInternals);
    if (cast === NOT_SUPPORTED) return NOT_SUPPORTED;
    const parts = path.split('.');
    let level = root;
    for (let i = 0; i < parts.length - 1; i++) {
      const prefix = parts.slice(0, i + 1).join('.');
      if (!s.nested[prefix]) return NOT_SUPPORTED;
      let node = level.find((n) => n.key === parts[i]);
      if (!node) {
        node = { key: parts[i] as string, children: [] };
        level.push(node);
      }
      if (!node.children) return NOT_SUPPORTED;
      level = node.children;
    }
    level.push({ key: parts[parts.length - 1] as string, cast });
  }

  const castLevel = (nodes: Node[], input: Record<string, unknown>, top: boolean): Record<string, unknown> => {
    for (const key in input) {
      if (key.includes('.') || key.startsWith('$') || (top && virtuals.has(key))) throw UNSURE;
    }
    const out: Record<string, unknown> = {};
    for (const node of nodes) {
      const value = input[node.key];
      let next: unknown;
      if (node.cast) next = node.cast(value);
      else if (value === undefined) next = castLevel(node.children as Node[], {}, false);
      else if (value === null) next = null;
      else if (isPlainObject(value)) next = castLevel(node.children as Node[], value, false);
      else throw UNSURE;
      if (next !== ABSENT) out[node.key] = next;
    }
    return out;
  };
  return (input) => {
    if (!isPlainObject(input)) throw UNSURE;
    const out = castLevel(root, input, true);
    return minimize ? (minimizeObject(out) ?? {}) : out;
  };
}

/** mongoose's `minimize` (helpers/minimize.js): empty plain objects out, recursively, not in arrays. */
function minimizeObject(obj: Record<string, unknown>): Record<string, unknown> | undefined {
  let hasKeys = false;
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    if (isPlainObject(value) && minimizeObject(value) === undefined) {
      delete obj[key];
      continue;
    }
    if (value === undefined) {
      delete obj[key];
      continue;
    }
    hasKeys = true;
  }
  return hasKeys ? obj : undefined;
}

function compilePath(type: SchemaTypeInternals): Cast | typeof NOT_SUPPORTED {
  if (!plainOptions(type)) return NOT_SUPPORTED;
  if (LEAF_TYPES.has(type.instance)) return compileLeaf(type);
  // The others: no validators but `required` (any value but null passes it).
  if (type.validators.some((v) => v.type !== 'required')) return NOT_SUPPORTED;
  if (type.instance === 'Mixed') return withDefault(type, mixedValue);
  if (type.$isSingleNested) {
    const sub = subdocument(type.schema);
    return sub === NOT_SUPPORTED ? NOT_SUPPORTED : withDefault(type, sub);
  }
  if (type.instance !== 'Array') return NOT_SUPPORTED;
  let item: Cast | typeof NOT_SUPPORTED;
  if (type.$isMongooseDocumentArray) {
    item = subdocument(type.schema);
  } else {
    const caster = type.caster;
    if (!caster || !LEAF_TYPES.has(caster.instance) || !plainOptions(caster) || caster.validators.length > 0) return NOT_SUPPORTED;
    const exact = exactValue(caster.instance);
    item = (value) => {
      if (value === null || value === undefined) throw UNSURE;
      return exact(value);
    };
  }
  if (item === NOT_SUPPORTED) return NOT_SUPPORTED;
  const castItem = item;
  return withDefault(type, (value) => {
    if (!Array.isArray(value)) throw UNSURE;
    return value.map(castItem);
  });
}

/** Subdocuments without an `_id` of their own (mongoose would make ObjectIds). */
function subdocument(schema: Schema | undefined): Cast | typeof NOT_SUPPORTED {
  if (!schema || schema.path('_id')) return NOT_SUPPORTED;
  const sub = compileObject(schema);
  return sub === NOT_SUPPORTED ? NOT_SUPPORTED : (value) => sub(value);
}

/** A non-leaf path: absent -> its default, null stays null, `required` refuses both. */
function withDefault(type: SchemaTypeInternals, cast: Cast): Cast | typeof NOT_SUPPORTED {
  const required = type.isRequired === true;
  const fallback = defaultOf(type);
  if (fallback === NOT_SUPPORTED) return NOT_SUPPORTED;
  return (given) => {
    const value = given === undefined ? fallback() : given;
    if (value === ABSENT || value === null) {
      if (required) throw UNSURE;
      return value;
    }
    return cast(value);
  };
}

/** A Mixed value is kept as given (copied): plain objects, arrays, strings, numbers, booleans, null, dates. */
function mixedValue(value: unknown): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Date) return new Date(value.getTime());
  if (Array.isArray(value)) return value.map(mixedValue);
  if (!isPlainObject(value)) throw UNSURE;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key.includes('.') || key.startsWith('$') || value[key] === undefined) throw UNSURE;
    out[key] = mixedValue(value[key]);
  }
  return out;
}

function compileLeaf(type: SchemaTypeInternals): Cast | typeof NOT_SUPPORTED {
  const checks: Array<(value: unknown) => unknown> = [];
  for (const v of type.validators) {
    if (v.type === 'required') continue;
    if (!VALUE_VALIDATORS.has(v.type ?? '') || typeof v.validator !== 'function') return NOT_SUPPORTED;
    checks.push(v.validator as (value: unknown) => unknown);
  }
  const required = type.isRequired === true;
  const exact = exactValue(type.instance);
  const fallback = defaultOf(type);
  if (fallback === NOT_SUPPORTED) return NOT_SUPPORTED;
  const fromDefault = type.instance === 'Date' ? (value: unknown) => (typeof value === 'number' ? new Date(value) : value) : (value: unknown) => value;
  return (given) => {
    let value: unknown;
    if (given !== undefined) value = given;
    else {
      const d = fallback();
      if (d === ABSENT) {
        if (required) throw UNSURE;
        return ABSENT;
      }
      value = fromDefault(d);
    }
    const out = value === null ? null : exact(value);
    // mongoose's `required`: not null, and for a string not empty.
    if (required && (out === null || out === '')) throw UNSURE;
    for (const check of checks) {
      const ok = check(out);
      if (!ok || typeof (ok as { then?: unknown }).then === 'function') throw UNSURE;
    }
    return out;
  };
}

/** Only values already of the type pass, as mongoose's cast leaves them (dates copied). */
function exactValue(instance: string): Cast {
  switch (instance) {
    case 'String':
      return (v) => {
        if (typeof v !== 'string') throw UNSURE;
        return v;
      };
    case 'Number':
      return (v) => {
        if (typeof v !== 'number' || !Number.isFinite(v)) throw UNSURE;
        return v;
      };
    case 'Boolean':
      return (v) => {
        if (typeof v !== 'boolean') throw UNSURE;
        return v;
      };
    default:
      return (v) => {
        if (!(v instanceof Date) || Number.isNaN(v.getTime())) throw UNSURE;
        return new Date(v.getTime());
      };
  }
}

function plainOptions(type: SchemaTypeInternals): boolean {
  if (type.setters.length > 0 || type.getters.length > 0) return false;
  if (type.options.required !== undefined && typeof type.options.required !== 'boolean') return false;
  return Object.keys(type.options).every((k) => NEUTRAL_OPTIONS.has(k));
}

/** The path's default as mongoose computes it for a new document; ABSENT when it has none. */
function defaultOf(type: SchemaTypeInternals): (() => unknown) | typeof NOT_SUPPORTED {
  const d = type.defaultValue;
  if (d === undefined) return () => ABSENT;
  if (typeof d === 'function') {
    return () => {
      let value: unknown;
      try {
        value = (d as () => unknown).call(undefined);
      } catch {
        throw UNSURE;
      }
      return value === undefined ? ABSENT : value;
    };
  }
  if (d !== null && typeof d === 'object' && !isPlainObject(d) && !Array.isArray(d)) return NOT_SUPPORTED;
  return () => d; // an object default is copied by the path's cast
}
