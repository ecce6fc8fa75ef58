// Micro-benchmark of the embedded document store (packages/engines/src/store/memory/).
//   cd /work/main && npx tsx bench/store.bench.ts [docs]
// Inserts `docs` (default 100,000) reservation-like documents of ONE workspace, then times the
// queries the reservation API runs. Every case stops after RUNS runs or CASE_BUDGET_MS, whichever
// comes first, and every case stops at TOTAL_BUDGET_MS, so the script stays under 2 minutes.
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createMemoryStore } from '@vrp/engines/store';
import type { Doc } from '@vrp/platform/store';

const DOCS = Number(process.argv[2] ?? 100_000);
const RUNS = 200;
const CASE_BUDGET_MS = 6_000;
const TOTAL_BUDGET_MS = 110_000;
const STARTED = performance.now();
const INSERT_BATCH = 1_000;
const PROPERTIES = 100;
const STATUSES = ['confirmed', 'cancelled', 'inquiry', 'pending', 'checked_out'] as const;
const WORKSPACE = 'wsp_bench';

// mongoose is a dependency of @vrp/engines (not of the workspace root), and the store needs
// schemas built by that same copy: load it from there.
const enginesRequire = createRequire(join(__dirname, '..', 'packages', 'engines', 'package.json'));
const { Schema } = enginesRequire('mongoose') as typeof import('mongoose');
const guestSchema = new Schema(
  {
    firstName: { type: String, required: true },
    lastName: { type: String, default: '' },
    email: { type: String, default: '' },
    phone: { type: String, default: '' },
  },
  { _id: false },
);
const YMD = /^\d{4}-\d{2}-\d{2}$/;
const reservationSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    propertyId: { type: String, required: true },
    status: { type: String, enum: STATUSES, required: true },
    confirmationCode: { type: String, required: true },
    checkIn: { type: String, required: true, match: YMD },
    checkOut: { type: String, required: true, match: YMD },
    primaryGuest: { type: guestSchema, required: true },
    occupancy: { adults: { type: Number, default: 1, min: 0 }, children: { type: Number, default: 0, min: 0 } },
    totalPrice: { type: Number, default: 0 },
    revision: { type: Number, default: 0 },
    maxRevision: { type: Number, default: 1_000_000 },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// The reservation service's indexes.
reservationSchema.index({ workspaceId: 1, checkIn: 1, _id: 1 });
reservationSchema.index({ workspaceId: 1, propertyId: 1, checkIn: 1 });
reservationSchema.index({ workspaceId: 1, status: 1, checkIn: 1 });
reservationSchema.index({ workspaceId: 1, updatedAt: 1 });
reservationSchema.index({ workspaceId: 1, confirmationCode: 1 }, { unique: true });

type Reservation = Doc & { workspaceId: string; propertyId: string; status: string; checkIn: string; revision?: number };

function ymd(day: number): string {
  return new Date(Date.UTC(2024, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
}

/** Deterministic pseudo-random numbers, so runs compare. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

function makeDoc(i: number, rand: () => number): Reservation {
  const day = Math.floor(rand() * 730);
  return {
    _id: `res_${i.toString().padStart(7, '0')}`,
    workspaceId: WORKSPACE,
    propertyId: `prp_${Math.floor(rand() * PROPERTIES)}`,
    status: STATUSES[Math.floor(rand() * STATUSES.length)] ?? 'confirmed',
    confirmationCode: `CONF${i}`,
    checkIn: ymd(day),
    checkOut: ymd(day + 1 + Math.floor(rand() * 10)),
    primaryGuest: { firstName: `Guest${i}`, lastName: 'Doe', email: `g${i}@example.com` },
    occupancy: { adults: 2, children: Math.floor(rand() * 3) },
    totalPrice: Math.round(rand() * 200_000) / 100,
    updatedAt: new Date(Date.UTC(2024, 0, 1) + i * 1000),
  };
}

interface Stats {
  runs: number;
  opsPerSec: number;
  p50: number;
  p99: number;
}

async function measure(fn: (i: number) => Promise<unknown>): Promise<Stats> {
  await fn(0); // warm-up (compiles the code paths)
  const times: number[] = [];
  const started = performance.now();
  for (let i = 1; i <= RUNS; i++) {
    const t0 = performance.now();
    await fn(i);
    times.push(performance.now() - t0);
    const now = performance.now();
    if (now - started > CASE_BUDGET_MS || now - STARTED > TOTAL_BUDGET_MS) break;
  }
  const total = times.reduce((a, b) => a + b, 0);
  times.sort((a, b) => a - b);
  const pct = (p: number): number => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))] ?? NaN;
  return { runs: times.length, opsPerSec: (times.length / total) * 1000, p50: pct(50), p99: pct(99) };
}

function row(name: string, s: Stats): void {
  const ms = (v: number): string => `${v.toFixed(3)} ms`.padStart(12);
  console.log(`${name.padEnd(58)} ${String(s.runs).padStart(5)} runs ${s.opsPerSec.toFixed(1).padStart(10)} ops/s  p50 ${ms(s.p50)}  p99 ${ms(s.p99)}`);
}

async function main(): Promise<void> {
  const store = createMemoryStore();
  const reservations = store.collection<Reservation>({ name: 'reservations', schema: reservationSchema });
  const rand = rng(42);
  const docs = Array.from({ length: DOCS }, (_, i) => makeDoc(i, rand));

  const load = (): string =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(`memory store bench: ${DOCS} reservations in one workspace, node ${process.version}, load average ${load()}`);
  const t0 = performance.now();
  for (let i = 0; i < docs.length; i += INSERT_BATCH) await reservations.insertMany(docs.slice(i, i + INSERT_BATCH));
  const insertMs = performance.now() - t0;
  console.log(`insertMany ${DOCS} docs (batches of ${INSERT_BATCH}): ${(insertMs / 1000).toFixed(2)} s (${Math.round(DOCS / (insertMs / 1000))} docs/s)`);
  console.log(`heap used after insert: ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MB (source documents included)`);

  // Sanity: the page and the count agree with the data set.
  const expected = docs.filter((d) => d.propertyId === 'prp_7').length;
  const count = await reservations.countDocuments({ workspaceId: WORKSPACE, propertyId: 'prp_7' });
  if (count !== expected) throw new Error(`count mismatch: ${count} != ${expected}`);

  const page = { sort: { checkIn: 1, _id: 1 } as const, skip: 0, limit: 50 };
  const listing = async (filter: Record<string, unknown>, skip = 0): Promise<void> => {
    const [items, total] = await Promise.all([reservations.find(filter, { ...page, skip }), reservations.countDocuments(filter)]);
    if (items.length === 0 || total === 0) throw new Error('empty page');
  };
  const idOf = (i: number): string => `res_${((i * 7919) % DOCS).toString().padStart(7, '0')}`;

  row('insertOne (extra docs)', await measure((i) => reservations.insertOne(makeDoc(DOCS + i, rand))));
  row('find {workspaceId} sort {checkIn,_id} limit 50 + count', await measure(() => listing({ workspaceId: WORKSPACE })));
  row('  same, skip 5000', await measure(() => listing({ workspaceId: WORKSPACE }, 5000)));
  row('find {workspaceId, propertyId} page + count', await measure((i) => listing({ workspaceId: WORKSPACE, propertyId: `prp_${i % PROPERTIES}` })));
  row('find {workspaceId, status} page + count', await measure((i) => listing({ workspaceId: WORKSPACE, status: STATUSES[i % STATUSES.length] })));
  row('findOne {_id}', await measure((i) => reservations.findOne({ _id: idOf(i) })));
  row(
    'findOne {workspaceId, confirmationCode}',
    await measure((i) => reservations.findOne({ workspaceId: WORKSPACE, confirmationCode: `CONF${(i * 7919) % DOCS}` })),
  );
  row('updateOne {_id} $set', await measure((i) => reservations.updateOne({ _id: idOf(i) }, { $set: { totalPrice: i, updatedAt: new Date() } })));
  row(
    'findOneAndUpdate {_id, $expr guard} $inc',
    await measure((i) =>
      reservations.findOneAndUpdate(
        { _id: idOf(i), $expr: { $lt: [{ $add: ['$revision', 1] }, '$maxRevision'] } },
        { $inc: { revision: 1 }, $set: { updatedAt: new Date() } },
      ),
    ),
  );
  await store.close();
  console.log(`done in ${((performance.now() - STARTED) / 1000).toFixed(1)} s, load average ${load()}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
