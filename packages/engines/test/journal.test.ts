// One data directory, one LMDB environment: the stores and the bus of a process write their named
// databases of `<dataDir>/journal` through one group-commit queue. Proves that each owner reads
// back only its own data after a restart, that a failed batch runs every affected owner's undo
// before any promise rejects, and that the layout before journals (one environment per store and
// one for the bus) is moved into the journal once, never again over later changes.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Schema } from 'mongoose';
import { StoreUnavailableError, type Doc, type DocumentStore } from '@vrp/platform/store';
import { createEmbeddedBus } from '../src/bus';
import { createMemoryBus } from '../src/bus/memory';
import { openBusPersistence } from '../src/bus/persistence';
import { DurableEnv, openJournal } from '../src/persistence/lmdb';
import { createEmbeddedStore, createMemoryStore, openStorePersistence } from '../src/store';
import { tempDirs } from './temp-dirs';

interface Row extends Doc {
  _id: string;
  text: string;
}

const spec = { name: 'outbox', schema: new Schema({ _id: { type: String, required: true }, text: { type: String, required: true } }, { versionKey: false }) };
const dataDir = tempDirs('vrp-journal-');

const rows = async (store: DocumentStore) => (await store.collection<Row>(spec).find({}, { sort: { _id: 1 } })).map((r) => `${r._id}=${r.text}`);

const msg = (key: string, text: string) => ({ key, value: new TextEncoder().encode(text), headers: {} });

async function published(dir: string): Promise<string[]> {
  const bus = createEmbeddedBus(dir);
  const seen: string[] = [];
  const sub = await bus.subscribe({
    groupId: `reader-${Math.random()}`,
    topics: ['events'],
    fromBeginning: true,
    handler: async (m) => void seen.push(new TextDecoder().decode(m.value)),
  });
  await bus.whenIdle(5000);
  await sub.stop();
  await bus.close();
  // In `pnpm test` the embedded bus redelivers (duplicates on purpose): what was published is the set.
  return [...new Set(seen)];
}

describe('the journal of a data directory', () => {
  it('keeps every store and the bus in one environment, each reading back only its own data', async () => {
    const dir = dataDir();
    const a = createEmbeddedStore('reservation', dir);
    const b = createEmbeddedStore('guest', dir);
    const bus = createEmbeddedBus(dir);
    // Written in one turn: the same collection name in two stores, and a publish, in one batch.
    await Promise.all([
      a.collection<Row>(spec).insertOne({ _id: 'r1', text: 'from reservation' }),
      b.collection<Row>(spec).insertOne({ _id: 'g1', text: 'from guest' }),
      bus.publish('events', [msg('k', 'e1')]),
    ]);
    await Promise.all([a.close(), b.close(), bus.close()]);

    expect(readdirSync(dir)).toEqual(['journal']);
    const [a2, b2] = [createEmbeddedStore('reservation', dir), createEmbeddedStore('guest', dir)];
    expect(await rows(a2)).toEqual(['r1=from reservation']);
    expect(await rows(b2)).toEqual(['g1=from guest']);
    await Promise.all([a2.close(), b2.close()]);
    expect(await published(dir)).toEqual(['e1']);
  });

  it('fails a batch for every owner in it, running each owner undo before any of their promises rejects', async () => {
    const journal = openJournal(dataDir());
    const undone: string[] = [];
    const seenAtRejection: string[][] = [];
    const first = new DurableEnv({ journal, name: 'first', label: 'first store', onFailure: () => undone.push('first') });
    const second = new DurableEnv({ journal, name: 'second', label: 'second store', onFailure: () => undone.push('second') });
    const outcome = (p: Promise<void>) =>
      p.then(
        () => 'written',
        (err: unknown) => {
          seenAtRejection.push([...undone]);
          return err instanceof StoreUnavailableError ? err.message : String(err);
        },
      );
    // One turn, one batch: the second owner's entry cannot be written, so neither reaches the disk.
    const results = await Promise.all([
      outcome(first.commit({ write: (db) => void db.put('k', Buffer.from('v')) })),
      outcome(
        second.commit({
          write: () => {
            throw new Error('disk refused');
          },
        }),
      ),
    ]);
    expect(results).toEqual([
      expect.stringContaining('first store: the write did not reach the disk'),
      expect.stringContaining('second store: the write did not reach the disk'),
    ]);
    expect(seenAtRejection).toEqual([
      ['first', 'second'],
      ['first', 'second'],
    ]);
    expect(first.root.get('k')).toBeUndefined();
    // The next batch is written as usual.
    await first.commit({ write: (db) => void db.put('k', Buffer.from('after')) });
    expect(Buffer.from(first.root.get('k') as Buffer).toString()).toBe('after');
    await Promise.all([first.close(), second.close()]);
  });

  it('moves the layout before journals into the journal once, and never again over later changes', async () => {
    const dir = dataDir();
    // The earlier layout: an environment per store (<dir>/<name>) and one for the bus (<dir>/bus).
    const legacy = createMemoryStore({ persistence: openStorePersistence({ path: join(dir, 'reservation'), label: 'reservation store' }) });
    await legacy.collection<Row>(spec).insertMany([
      { _id: 'r1', text: 'one' },
      { _id: 'r2', text: 'two' },
    ]);
    await legacy.close();
    const legacyBus = createMemoryBus({ persistence: openBusPersistence({ path: join(dir, 'bus'), retentionMs: 3_600_000 }) });
    await legacyBus.publish('events', [msg('k', 'old')]);
    await legacyBus.close();

    const moved = createEmbeddedStore('reservation', dir);
    expect(await rows(moved)).toEqual(['r1=one', 'r2=two']);
    await moved.collection<Row>(spec).deleteOne({ _id: 'r1' });
    await moved.close();
    expect(await published(dir)).toEqual(['old']);

    // Restarted: what was deleted after the move stays deleted; the old directories are untouched.
    const again = createEmbeddedStore('reservation', dir);
    expect(await rows(again)).toEqual(['r2=two']);
    await again.close();
    expect(existsSync(join(dir, 'reservation', 'data.mdb'))).toBe(true);
  });
});
