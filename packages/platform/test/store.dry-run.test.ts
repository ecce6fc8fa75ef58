// The dry-run store (store/dry-run.ts): in a dry run's context every transaction runs in full and is
// rolled back, handing back its result; a lone write is rolled back the same way; errors are the
// real write's. Outside a dry run the store behaves as the engine does.
import { Schema } from 'mongoose';
import { createMemoryStore } from '../../engines/src/store';
import { DuplicateKeyError } from '../src/store';
import { runWithContext } from '../src/context';
import { dryRunAware } from '../src/store/dry-run';

const schema = new Schema({ _id: { type: String, required: true }, name: { type: String, required: true } }, { versionKey: false });
schema.index({ name: 1 }, { unique: true });

describe('dry-run store', () => {
  const store = dryRunAware(createMemoryStore());
  const items = store.collection<{ _id: string; name: string }>({ name: 'items', schema });
  const dry = <T>(fn: () => Promise<T>) => runWithContext({ requestId: 'req_dryrun0001', dryRun: true }, fn);

  beforeAll(async () => {
    await store.init();
    await items.insertOne({ _id: 'kept', name: 'kept' });
  });
  afterAll(() => store.close());

  it('runs a transaction in full, sees its own writes, answers its result and keeps none of them', async () => {
    const result = await dry(() =>
      store.transaction(async (tx) => {
        await items.insertOne({ _id: 'new', name: 'new' }, { tx });
        await items.updateOne({ _id: 'kept' }, { $set: { name: 'changed' } }, { tx });
        return (await items.find({}, { tx, sort: { _id: 1 } })).map((d) => d.name);
      }),
    );
    expect(result).toEqual(['changed', 'new']);
    expect(await items.find({}, { sort: { _id: 1 } })).toEqual([{ _id: 'kept', name: 'kept' }]);
  });

  it('rolls back a lone write and answers what it would have', async () => {
    expect(await dry(() => items.updateOne({ _id: 'kept' }, { $set: { name: 'lone' } }))).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    expect(await dry(() => items.insertOne({ _id: 'lone', name: 'lone' }))).toEqual({ _id: 'lone', name: 'lone' });
    expect(await dry(() => items.deleteMany({}))).toEqual({ deletedCount: 1 });
    expect(await items.find({})).toEqual([{ _id: 'kept', name: 'kept' }]);
  });

  it('fails as the real write would (a unique index), and commits outside a dry run', async () => {
    await expect(dry(() => items.insertOne({ _id: 'twin', name: 'kept' }))).rejects.toBeInstanceOf(DuplicateKeyError);
    await store.transaction((tx) => items.insertOne({ _id: 'real', name: 'real' }, { tx }));
    expect(await items.countDocuments({})).toBe(2);
  });
});
