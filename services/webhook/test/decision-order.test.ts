import { DecisionOrder } from '../src/use-cases/decision-order';

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

describe('DecisionOrder', () => {
  it('runs decisions about one listing one after the other, in the order they came', async () => {
    const order = new DecisionOrder();
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
    const order = new DecisionOrder();
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
    const order = new DecisionOrder();
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
    const order = new DecisionOrder();
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
    const order = new DecisionOrder();
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
    const order = new DecisionOrder();
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
