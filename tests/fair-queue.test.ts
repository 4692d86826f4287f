import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FairQueue, QueueRefusal } from '../lib/fair-queue.ts';

const deferred = () => {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

describe('FairQueue', () => {
  it('runs at most `concurrency` tasks at once, the rest in arrival order', async () => {
    const q = new FairQueue({ concurrency: 1, maxQueued: 10, perOwner: 10 });
    const order: string[] = [];
    const gates = [deferred(), deferred(), deferred()];
    const runs = ['a', 'b', 'c'].map((name, i) =>
      q.run(name, async () => {
        order.push(`start ${name}`);
        await gates[i]?.promise;
        order.push(`end ${name}`);
      }),
    );
    await Promise.resolve();
    expect(q.size).toEqual({ running: 1, waiting: 2 });
    for (const g of gates) g.resolve();
    await Promise.all(runs);
    expect(order).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(q.size).toEqual({ running: 0, waiting: 0 });
  });

  it("refuses an owner's task past its share, and any task past a full queue, at once; a place freed is free again", async () => {
    const q = new FairQueue({ concurrency: 1, maxQueued: 2, perOwner: 2 });
    const gate = deferred();
    const held = [q.run('attacker', () => gate.promise), q.run('attacker', () => gate.promise)];
    await expect(q.run('attacker', () => 1)).rejects.toEqual(new QueueRefusal('owner'));
    const other = q.run('shop', () => 'served');
    await expect(q.run('third', () => 1)).rejects.toEqual(new QueueRefusal('full'));
    gate.resolve();
    await Promise.all(held);
    expect(await other).toBe('served');
    expect(await q.run('attacker', () => 'again')).toBe('again');
  });

  it('background work is never refused, takes no place of the others, and runs when no other task waits', async () => {
    const q = new FairQueue({ concurrency: 1, maxQueued: 1, perOwner: 1 });
    const order: string[] = [];
    const gate = deferred();
    const first = q.run('shop', async () => {
      order.push('shop');
      await gate.promise;
    });
    // a pull's slices: as many as it has, none refused, none counted as waiting
    const slices = [1, 2, 3].map((n) => q.run('puller', () => void order.push(`pull ${n}`), { background: true }));
    expect(q.size).toEqual({ running: 1, waiting: 0 });
    expect(q.backgroundSize).toEqual({ waiting: 3, owners: 1 });
    // another shop's task still has its place, and the merchant pulling its own share
    const other = q.run('other', () => void order.push('other'));
    await expect(q.run('third', () => 1)).rejects.toEqual(new QueueRefusal('full'));
    gate.resolve();
    await Promise.all([first, other, ...slices]);
    expect(order).toEqual(['shop', 'other', 'pull 1', 'pull 2', 'pull 3']);
    expect(q.backgroundSize).toEqual({ waiting: 0, owners: 0 });
  });

  it("a task that arrives while a merchant's background slices run waits for one slice at most; owners take turns", async () => {
    const q = new FairQueue({ concurrency: 1, maxQueued: 4, perOwner: 2 });
    const order: string[] = [];
    const gates: (() => void)[] = [];
    const slice = (owner: string, n: number) =>
      q.run(
        owner,
        async () => {
          order.push(`${owner} ${n}`);
          await new Promise<void>((r) => gates.push(r));
        },
        { background: true },
      );
    // one merchant's pull sent all its slices at once, another's two
    const all = [slice('big', 1), slice('big', 2), slice('big', 3), slice('small', 1), slice('small', 2)];
    await new Promise((r) => setImmediate(r));
    gates.shift()?.();
    await new Promise((r) => setImmediate(r));
    // an inline catalog arrives while the second slice runs
    const inline = q.run('shop', () => void order.push('shop'));
    while (gates.length || q.size.running || q.backgroundSize.waiting) {
      gates.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all([...all, inline]);
    expect(order).toEqual(['big 1', 'small 1', 'shop', 'big 2', 'small 2', 'big 3']);
  });

  it('a task that throws frees its place', async () => {
    const q = new FairQueue({ concurrency: 1, maxQueued: 0, perOwner: 1 });
    await expect(q.run('a', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await q.run('a', () => 2)).toBe(2);
  });

  it('for any sequence of arrivals and completions: never more running than allowed, never an owner above its share, every task admitted runs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          concurrency: fc.integer({ min: 1, max: 3 }),
          maxQueued: fc.integer({ min: 0, max: 4 }),
          perOwner: fc.integer({ min: 1, max: 3 }),
        }),
        fc.array(fc.constantFrom('a', 'b', 'c', 'finish'), { maxLength: 40 }),
        async (opts, script) => {
          const q = new FairQueue(opts);
          const gates: (() => void)[] = [];
          const outstanding = new Map<string, number>();
          let running = 0;
          let admitted = 0;
          let ran = 0;
          const all: Promise<unknown>[] = [];
          const tick = () => new Promise((r) => setImmediate(r));
          for (const step of script) {
            if (step === 'finish') {
              gates.shift()?.();
              await tick();
              continue;
            }
            let refused = false;
            const p = q.run(step, async () => {
              running++;
              ran++;
              expect(running).toBeLessThanOrEqual(opts.concurrency);
              await new Promise<void>((r) => gates.push(r));
              running--;
            });
            all.push(
              p.then(
                () => outstanding.set(step, (outstanding.get(step) ?? 0) - 1),
                (e) => {
                  expect(e).toBeInstanceOf(QueueRefusal);
                  refused = true;
                },
              ),
            );
            await tick();
            if (!refused) {
              admitted++;
              outstanding.set(step, (outstanding.get(step) ?? 0) + 1);
            }
            for (const n of outstanding.values()) expect(n).toBeLessThanOrEqual(opts.perOwner);
            expect(q.size.waiting).toBeLessThanOrEqual(opts.maxQueued);
          }
          while (gates.length || q.size.running || q.size.waiting) {
            gates.shift()?.();
            await tick();
          }
          await Promise.all(all);
          expect(ran).toBe(admitted);
        },
      ),
      { numRuns: 60 },
    );
  });
});
