import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type BatchWriterOptions, createBatchWriter } from '../lib/batch-writer.ts';

interface Write {
  batch: number[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** a writer whose writes stay in flight until the test settles them */
function setup(over: Partial<BatchWriterOptions<number>> = {}) {
  const writes: Write[] = [];
  const failures: { batch: number[]; err: unknown }[] = [];
  const drops: number[] = [];
  const writer = createBatchWriter<number>({
    write: (batch) =>
      new Promise<void>((resolve, reject) => {
        writes.push({ batch: [...batch], resolve, reject });
      }),
    maxWaitMs: 100,
    maxBatch: 3,
    onFailure(batch, err) {
      failures.push({ batch: [...batch], err });
    },
    onDrop: (n) => drops.push(n),
    ...over,
  });
  return { writer, writes, failures, drops };
}

/** lets the promise callbacks queued so far run, without moving the clock */
async function settle() {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

/** whether a promise has settled by now */
async function isDone(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await settle();
  return done;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('batch writer', () => {
  it('writes at once when the queued weight reaches maxBatch', () => {
    const { writer, writes } = setup();
    writer.add(1);
    writer.add(2);
    expect(writes).toEqual([]);
    writer.add(3);
    expect(writes.map((w) => w.batch)).toEqual([[1, 2, 3]]);
    expect(writer.queued).toBe(0);
  });

  it('counts each item by its weight towards maxBatch', () => {
    const { writer, writes } = setup({ maxBatch: 10, weight: (n) => n });
    writer.add(4);
    writer.add(5);
    expect(writes).toEqual([]);
    writer.add(1);
    expect(writes.map((w) => w.batch)).toEqual([[4, 5, 1]]);
  });

  it('writes maxWaitMs after the first item of a batch, not before, and not later for items added since', () => {
    const { writer, writes } = setup();
    writer.add(1);
    vi.advanceTimersByTime(60);
    writer.add(2);
    vi.advanceTimersByTime(39);
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(writes.map((w) => w.batch)).toEqual([[1, 2]]);
  });

  it('sets no timer while nothing is queued', () => {
    const { writer } = setup();
    expect(vi.getTimerCount()).toBe(0);
    writer.add(1);
    expect(vi.getTimerCount()).toBe(1);
    writer.add(2);
    expect(vi.getTimerCount()).toBe(1);
  });

  it('keeps one write in flight: what arrives meanwhile is the next batch, written as soon as it ends', async () => {
    const { writer, writes } = setup();
    writer.add(1);
    writer.add(2);
    writer.add(3);
    writer.add(4);
    writer.add(5);
    writer.add(6);
    writer.add(7);
    vi.advanceTimersByTime(500);
    expect(writes.map((w) => w.batch)).toEqual([[1, 2, 3]]);

    writes[0]?.resolve();
    await settle();
    // no time has passed: the next batch did not wait for its timer
    expect(writes.map((w) => w.batch)).toEqual([
      [1, 2, 3],
      [4, 5, 6, 7],
    ]);
  });

  it('without chaining, what arrived during a write waits for its size or its time', async () => {
    const { writer, writes } = setup({ chainWrites: false });
    writer.add(1);
    writer.add(2);
    writer.add(3);
    writer.add(4);
    writes[0]?.resolve();
    await settle();
    // one item behind the write: not written at once
    expect(writes.map((w) => w.batch)).toEqual([[1, 2, 3]]);
    vi.advanceTimersByTime(99);
    expect(writes).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(writes.map((w) => w.batch)).toEqual([[1, 2, 3], [4]]);
    // a full batch behind a write still goes as soon as the write ends
    writer.add(5);
    writer.add(6);
    writer.add(7);
    writer.add(8);
    writes[1]?.resolve();
    await settle();
    expect(writes.map((w) => w.batch)).toEqual([[1, 2, 3], [4], [5, 6, 7, 8]]);
  });

  it('reports a failed batch and writes the next one', async () => {
    const { writer, writes, failures } = setup();
    writer.add(1);
    writer.add(2);
    writer.add(3);
    writer.add(4);
    const err = new Error('refused');
    writes[0]?.reject(err);
    await settle();
    expect(failures).toEqual([{ batch: [1, 2, 3], err }]);
    expect(writes.map((w) => w.batch)).toEqual([[1, 2, 3], [4]]);
  });

  it('waits for onFailure to settle before writing the next batch', async () => {
    let handled = () => {};
    const { writer, writes } = setup({
      onFailure: () =>
        new Promise<undefined>((resolve) => {
          handled = () => resolve(undefined);
        }),
    });
    writer.add(1);
    writer.add(2);
    writer.add(3);
    writer.add(4);
    writes[0]?.reject(new Error('refused'));
    await settle();
    expect(writes).toHaveLength(1);
    handled();
    await settle();
    expect(writes.map((w) => w.batch)).toEqual([[1, 2, 3], [4]]);
  });

  it('re-queues a failed batch ahead of newer items when asked, and tries again maxWaitMs later', async () => {
    const { writer, writes } = setup({ onFailure: () => 'requeue' });
    writer.add(1);
    writer.add(2);
    writer.add(3);
    writer.add(4);
    writes[0]?.reject(new Error('refused'));
    await settle();
    expect(writer.queued).toBe(4);
    // reaching maxBatch again does not start the retry early
    writer.add(5);
    vi.advanceTimersByTime(99);
    expect(writes).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(writes.map((w) => w.batch)).toEqual([
      [1, 2, 3],
      [1, 2, 3, 4, 5],
    ]);
  });

  it('bounds a re-queued batch by maxQueued, dropping the oldest and reporting how many', async () => {
    const { writer, writes, drops } = setup({ onFailure: () => 'requeue', maxQueued: 4 });
    writer.add(1);
    writer.add(2);
    writer.add(3);
    writer.add(4);
    writer.add(5);
    writes[0]?.reject(new Error('refused'));
    await settle();
    expect(writer.queued).toBe(4);
    vi.advanceTimersByTime(100);
    expect(writes[1]?.batch).toEqual([2, 3, 4, 5]);
    expect(drops).toEqual([1]);
  });

  it('drops the oldest items added past maxQueued and reports them once, with the next write', async () => {
    const { writer, writes, drops } = setup({ maxBatch: 100, maxQueued: 3 });
    for (let i = 1; i <= 6; i++) writer.add(i);
    expect(writer.queued).toBe(3);
    expect(drops).toEqual([]);
    vi.advanceTimersByTime(100);
    expect(writes.map((w) => w.batch)).toEqual([[4, 5, 6]]);
    expect(drops).toEqual([3]);
  });

  it('close() writes what is queued, stops the timer, and resolves once written', async () => {
    const { writer, writes } = setup();
    writer.add(1);
    writer.add(2);
    const closing = writer.close();
    expect(writes.map((w) => w.batch)).toEqual([[1, 2]]);
    expect(vi.getTimerCount()).toBe(0);
    expect(await isDone(closing)).toBe(false);
    writes[0]?.resolve();
    expect(await isDone(closing)).toBe(true);
  });

  it('close() waits for the write in flight and then writes what queued behind it', async () => {
    const { writer, writes } = setup();
    writer.add(1);
    writer.add(2);
    writer.add(3);
    writer.add(4);
    const closing = writer.close();
    expect(writes).toHaveLength(1);
    writes[0]?.resolve();
    await settle();
    expect(writes.map((w) => w.batch)).toEqual([[1, 2, 3], [4]]);
    expect(await isDone(closing)).toBe(false);
    writes[1]?.resolve();
    expect(await isDone(closing)).toBe(true);
  });

  it('close() gives a re-queued batch one more try and then leaves no retry behind', async () => {
    const { writer, writes } = setup({ onFailure: () => 'requeue' });
    writer.add(1);
    writer.add(2);
    writer.add(3);
    writes[0]?.reject(new Error('refused'));
    await settle();
    const closing = writer.close();
    expect(writes.map((w) => w.batch)).toEqual([
      [1, 2, 3],
      [1, 2, 3],
    ]);
    writes[1]?.reject(new Error('refused'));
    expect(await isDone(closing)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(writer.queued).toBe(3);
  });

  it('a write that throws is reported to onFailure, not thrown into add', async () => {
    const err = new Error('bad batch');
    const failures: unknown[] = [];
    const writer = createBatchWriter<number>({
      write: () => {
        throw err;
      },
      maxWaitMs: 100,
      maxBatch: 1,
      onFailure: (_batch, e) => {
        failures.push(e);
      },
    });
    expect(() => writer.add(1)).not.toThrow();
    await settle();
    expect(failures).toEqual([err]);
  });

  it('after close() an item is written at once', async () => {
    const { writer, writes } = setup();
    await writer.close();
    writer.add(1);
    expect(writes.map((w) => w.batch)).toEqual([[1]]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('flush() waits for the write in flight', async () => {
    const { writer, writes } = setup();
    writer.add(1);
    writer.add(2);
    writer.add(3);
    const flushed = writer.flush();
    expect(await isDone(flushed)).toBe(false);
    writes[0]?.resolve();
    expect(await isDone(flushed)).toBe(true);
  });

  it('flush() during a write also waits for the batch queued behind it', async () => {
    const { writer, writes } = setup();
    writer.add(1);
    writer.add(2);
    writer.add(3);
    writer.add(4);
    const flushed = writer.flush();
    writes[0]?.resolve();
    await settle();
    expect(writes.map((w) => w.batch)).toEqual([[1, 2, 3], [4]]);
    expect(await isDone(flushed)).toBe(false);
    writes[1]?.resolve();
    expect(await isDone(flushed)).toBe(true);
  });

  it('flush() writes a batch at once, without waiting for its timer', () => {
    const { writer, writes } = setup();
    writer.add(1);
    void writer.flush();
    expect(writes.map((w) => w.batch)).toEqual([[1]]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
