import { BATCH_MAX, KeyedOrder } from '../src/keyed-order';

/** A step that records when it starts and finishes only when released. */
function gate(log: string[], name: string) {
  let release: (value?: unknown) => void = () => undefined;
  let fail: (err: Error) => void = () => undefined;
  const done = new Promise((resolve, reject) => {
    release = resolve;
    fail = reject;
  });
  return {
    step: async () => {
      log.push(`${name} start`);
      await done;
      log.push(`${name} end`);
      return name;
    },
    release: () => release(),
    fail: (err: Error) => fail(err),
  };
}

/** Lets every queued promise reaction run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('KeyedOrder', () => {
  it('runs decisions about one listing one after the other, in the order they came', async () => {
    const order = new KeyedOrder();
    const log: string[] = [];
    const a = gate(log, 'a');
    const b = gate(log, 'b');
    const first = order.about(['L1'], a.step);
    const second = order.about(['L1'], b.step);
    await settle();
    expect(log).toEqual(['a start']);
    a.release();
    await expect(first).resolves.toBe('a');
    await settle();
    expect(log).toEqual(['a start', 'a end', 'b start']);
    b.release();
    await expect(second).resolves.toBe('b');
  });

  it('runs decisions about other listings side by side', async () => {
    const order = new KeyedOrder();
    const log: string[] = [];
    const slow = gate(log, 'slow');
    const other = gate(log, 'other');
    const first = order.about(['L1'], slow.step);
    const second = order.about(['L2'], other.step);
    await settle();
    expect(log).toEqual(['slow start', 'other start']);
    other.release();
    await expect(second).resolves.toBe('other');
    expect(log).not.toContain('slow end');
    slow.release();
    await first;
  });

  it('waits for every listing a decision is about', async () => {
    const order = new KeyedOrder();
    const log: string[] = [];
    const one = gate(log, 'one');
    const two = gate(log, 'two');
    const both = gate(log, 'both');
    void order.about(['L1'], one.step);
    void order.about(['L2'], two.step);
    const last = order.about(['L1', 'L2'], both.step);
    await settle();
    one.release();
    await settle();
    expect(log).not.toContain('both start');
    two.release();
    await settle();
    expect(log).toContain('both start');
    both.release();
    await last;
  });

  it('runs a decision over every listing alone: after every earlier one, before every later one', async () => {
    const order = new KeyedOrder();
    const log: string[] = [];
    const before = gate(log, 'before');
    const sweep = gate(log, 'sweep');
    const after = gate(log, 'after');
    void order.about(['L1'], before.step);
    const swept = order.overAll(sweep.step);
    const later = order.about(['L2'], after.step);
    await settle();
    expect(log).toEqual(['before start']);
    before.release();
    await settle();
    expect(log).toEqual(['before start', 'before end', 'sweep start']);
    sweep.release();
    await swept;
    await settle();
    expect(log).toContain('after start');
    after.release();
    await later;
    await expect(order.idle()).resolves.toBeUndefined();
  });

  it('hands a failed decision its error and goes on with the next one about the same listing', async () => {
    const order = new KeyedOrder();
    const log: string[] = [];
    const failing = gate(log, 'failing');
    const next = gate(log, 'next');
    const first = order.about(['L1'], failing.step);
    const second = order.about(['L1'], next.step);
    failing.fail(new Error('store unavailable'));
    await expect(first).rejects.toThrow('store unavailable');
    await settle();
    expect(log).toContain('next start');
    next.release();
    await expect(second).resolves.toBe('next');
  });

  it('is idle once every decision queued so far has settled', async () => {
    const order = new KeyedOrder();
    const log: string[] = [];
    const a = gate(log, 'a');
    void order.about(['L1'], a.step);
    let idle = false;
    void order.idle().then(() => (idle = true));
    await settle();
    expect(idle).toBe(false);
    a.release();
    await settle();
    expect(idle).toBe(true);
  });
});

describe('KeyedOrder batches', () => {
  /** A batch runner that records each batch it was given and waits to be released. */
  function batches() {
    const seen: string[][] = [];
    const gates: (() => void)[] = [];
    const run = async (items: string[]) => {
      seen.push([...items]);
      await new Promise<void>((resolve) => gates.push(resolve));
      return items.map((item) => `${item} done`);
    };
    return { seen, run, release: () => gates.shift()?.() };
  }

  it('takes the items that arrive while a batch waits for its turn together, in order, each with its own result', async () => {
    const order = new KeyedOrder();
    const log: string[] = [];
    const first = gate(log, 'first');
    const b = batches();
    void order.about(['L1'], first.step);
    const results = ['a', 'b', 'c'].map((item) => order.batched('L1', item, b.run));
    await settle();
    expect(b.seen).toEqual([]);
    first.release();
    await settle();
    expect(b.seen).toEqual([['a', 'b', 'c']]);
    b.release();
    await expect(Promise.all(results)).resolves.toEqual(['a done', 'b done', 'c done']);
  });

  it('starts a new batch for items that arrive once a batch has started', async () => {
    const order = new KeyedOrder();
    const b = batches();
    const a = order.batched('L1', 'a', b.run);
    await settle();
    expect(b.seen).toEqual([['a']]);
    const later = order.batched('L1', 'b', b.run);
    await settle();
    expect(b.seen).toEqual([['a']]);
    b.release();
    await a;
    await settle();
    expect(b.seen).toEqual([['a'], ['b']]);
    b.release();
    await expect(later).resolves.toBe('b done');
  });

  it('never lets an item overtake a decision queued before it: another decision about the listing closes its batch', async () => {
    const order = new KeyedOrder();
    const log: string[] = [];
    const first = gate(log, 'first');
    const between = gate(log, 'between');
    const b = batches();
    void order.about(['L1'], first.step);
    const a = order.batched('L1', 'a', b.run);
    void order.about(['L1'], between.step);
    const c = order.batched('L1', 'c', b.run);
    first.release();
    await settle();
    expect(b.seen).toEqual([['a']]);
    b.release();
    await a;
    await settle();
    expect(log).toContain('between start');
    expect(b.seen).toEqual([['a']]);
    between.release();
    await settle();
    expect(b.seen).toEqual([['a'], ['c']]);
    b.release();
    await c;
  });

  it('closes every batch before a decision over every listing', async () => {
    const order = new KeyedOrder();
    const log: string[] = [];
    const first = gate(log, 'first');
    const sweep = gate(log, 'sweep');
    const b = batches();
    void order.about(['L1'], first.step);
    const a = order.batched('L1', 'a', b.run);
    const swept = order.overAll(sweep.step);
    const c = order.batched('L1', 'c', b.run);
    first.release();
    await settle();
    b.release();
    await a;
    await settle();
    expect(log).toContain('sweep start');
    expect(b.seen).toEqual([['a']]);
    sweep.release();
    await swept;
    await settle();
    expect(b.seen).toEqual([['a'], ['c']]);
    b.release();
    await c;
  });

  it('hands a failed batch its error to every item, and runs the next batch', async () => {
    const order = new KeyedOrder();
    const log: string[] = [];
    const first = gate(log, 'first');
    void order.about(['L1'], first.step);
    const failing = ['a', 'b'].map((item) =>
      order.batched('L1', item, async () => {
        throw new Error('store unavailable');
      }),
    );
    first.release();
    for (const item of failing) await expect(item).rejects.toThrow('store unavailable');
    await expect(order.batched('L1', 'c', async (items) => items.map((i) => `${i} done`))).resolves.toBe('c done');
  });

  it(`takes at most ${BATCH_MAX} items in one batch`, async () => {
    const order = new KeyedOrder();
    const log: string[] = [];
    const first = gate(log, 'first');
    const sizes: number[] = [];
    void order.about(['L1'], first.step);
    const all = Array.from({ length: BATCH_MAX + 1 }, (_, i) =>
      order.batched('L1', i, async (items: number[]) => {
        sizes.push(items.length);
        return items;
      }),
    );
    first.release();
    await expect(Promise.all(all)).resolves.toEqual(Array.from({ length: BATCH_MAX + 1 }, (_, i) => i));
    expect(sizes).toEqual([BATCH_MAX, 1]);
  });
});
