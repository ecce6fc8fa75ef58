// Identifiers: a type prefix plus 20 random base58 characters (no 0/O/I/l ambiguity), and
// sortable ids for things that must keep their creation order (outbox entries).
import { randomFillSync } from 'node:crypto';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/**
 * Random bytes are drawn from the CSPRNG 4 KiB at a time (as crypto.randomUUID does), not per id:
 * one `randomBytes` call per id was a few percent of a reservation write's CPU (ids are minted
 * several times per write). Each byte is used once and zeroed once used, so the pool never
 * holds the randomness behind a secret already handed out (API keys, webhook secrets).
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const byte = pool[poolOffset]!;
  pool[poolOffset++] = 0;
  return byte;
}

export function randomBase58(length: number): string {
  // Rejection sampling keeps every character equally likely.
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 232) out += BASE58[byte % 58];
  }
  return out;
}

export function newId(prefix: string): string {
  return `${prefix}_${randomBase58(20)}`;
}

let lastMs = 0;
let counter = 0;

/** Ids that sort in creation order within a process: ms timestamp + counter + randomness. */
export function sortableId(prefix: string): string {
  const now = Date.now();
  if (now === lastMs) counter += 1;
  else {
    lastMs = now;
    counter = 0;
  }
  return `${prefix}_${now.toString(36).padStart(9, '0')}${counter.toString(36).padStart(4, '0')}${randomBase58(6)}`;
}

/**
 * A sortable id that also sorts after `floor` (an id of the same shape), for rows that must
 * follow one written by a process whose clock was ahead: it takes the floor's time and next
 * counter when the local clock has not passed the floor.
 */
export function sortableIdAfter(prefix: string, floor: string | null): string {
  const id = sortableId(prefix);
  if (floor === null || id > floor) return id;
  const body = floor.slice(prefix.length + 1);
  const ms = body.slice(0, 9);
  const next = parseInt(body.slice(9, 13), 36) + 1;
  return `${prefix}_${ms}${next.toString(36).padStart(4, '0')}${randomBase58(6)}`;
}
