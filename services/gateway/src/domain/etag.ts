// Versions on the wire: the `ETag` of a versioned record and the `If-Match` a write may carry.
// Pure: no I/O.

/** A strong ETag naming a record's version: `"3"`. */
export function etagOf(version: number): string {
  return `"${version}"`;
}

/** What a write tells a service about `If-Match`: no precondition. */
export const ANY_VERSION = 0;
/** ...or a precondition no record can meet (a weak or foreign ETag: If-Match compares strongly). */
export const NO_VERSION = -1;

/**
 * The version an `If-Match` header demands, as the services take it: ANY_VERSION when absent
 * or `*`, the version of the one strong ETag it names, else NO_VERSION (a weak ETag, a list,
 * another format: RFC 9110 If-Match uses strong comparison, so such a precondition never holds).
 */
export function versionFromIfMatch(header: string | undefined): number {
  if (header === undefined) return ANY_VERSION;
  const value = header.trim();
  if (value === '*') return ANY_VERSION;
  const m = /^"([1-9]\d{0,8})"$/.exec(value);
  return m ? Number(m[1]) : NO_VERSION;
}
