export interface BatchWriterOptions<T> {
  /** writes one batch, in the order the items were added; rejects when nothing of it is to be trusted */
  write(batch: T[]): Promise<void>;
  /** a batch is written at most this long after its first item was added (unless a write is in flight) */
  maxWaitMs: number;
  /** …or at once when the queued weight reaches this */
  maxBatch: number;
  /** what an item counts towards maxBatch (events in a request, say); 1 when not given */
  weight?(item: T): number;
  /**
   * Told of every batch whose write rejected. 'requeue' puts the batch back in
   * front of what was queued since, to be written again maxWaitMs later. The
   * next batch waits until it has settled. It must not throw: a throw counts
   * as "do not requeue" and goes no further.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a hook that returns nothing (sync or async) keeps the batch out
  onFailure(batch: T[], err: unknown): 'requeue' | void | Promise<'requeue' | void>;
  /** at most this many items wait; past it the oldest are dropped */
  maxQueued?: number;
  /** how many were dropped since the last report; called when a write starts and on close */
  onDrop?(dropped: number): void;
  /**
   * true (default): what arrived during a write is written as soon as it
   * ends (group commit: the least wait). false: it waits for maxBatch or
   * maxWaitMs like any batch (the fewest writes, for a log nobody waits on).
   */
  chainWrites?: boolean;
}

export interface BatchWriter<T> {
  /** queues an item; never throws, never waits */
  add(item: T): void;
  /** resolves once everything queued before the call has been written or handed to onFailure */
  flush(): Promise<void>;
  /** writes what is queued and stops the timer; an item added afterwards is written at once */
  close(): Promise<void>;
  /** items waiting, not counting a batch being written */
  readonly queued: number;
}

const RESOLVED = Promise.resolve();

/**
 * Batches items into writes: one write in flight at a time, and whatever
 * arrives meanwhile is the next batch, written as soon as the current write
 * ends (group commit). Otherwise a batch is written when its weight reaches
 * maxBatch or maxWaitMs after its first item, whichever comes first.
 *
 * `add` runs on the hot path of a request: it pushes onto an array and, once
 * a batch, sets a timer; it creates no closure or promise of its own.
 */
export function createBatchWriter<T>(opts: BatchWriterOptions<T>): BatchWriter<T> {
  const { maxWaitMs, maxBatch, weight, maxQueued } = opts;
  const chain = opts.chainWrites ?? true;
  // queue[head…] wait; dropping the oldest moves head rather than shifting a 20,000-item array
  let queue: T[] = [];
  let head = 0;
  let queuedWeight = 0;
  let dropped = 0;
  let timer: NodeJS.Timeout | null = null;
  /** a requeued batch is waiting out maxWaitMs: reaching maxBatch does not start it early */
  let retrying = false;
  let closed = false;
  /** the write in flight, resolved once it has settled and the next one (if due) has started */
  let current: Promise<void> | null = null;
  /** for flush() calls made during a write: settles with the batch after it */
  let next: { promise: Promise<void>; resolve: () => void } | null = null;

  const size = () => queue.length - head;
  const weightOf = (items: T[]) => {
    if (!weight) return items.length;
    let w = 0;
    for (const item of items) w += weight(item);
    return w;
  };

  function dropOldest(): void {
    if (maxQueued === undefined) return;
    while (size() > maxQueued) {
      queuedWeight -= weight ? weight(queue[head] as T) : 1;
      queue[head] = undefined as T;
      head++;
      dropped++;
    }
    if (head > maxQueued) {
      queue = queue.slice(head);
      head = 0;
    }
  }

  function reportDrops(): void {
    if (dropped === 0) return;
    const n = dropped;
    dropped = 0;
    try {
      opts.onDrop?.(n);
    } catch {
      // a reporting hook that throws must not stop the writes
    }
  }

  function clearTimer(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    retrying = false;
  }

  function onTimer(): void {
    timer = null;
    retrying = false;
    if (current === null && size() > 0) void start();
  }

  /** writes the batch; true when it failed and onFailure asked for it back */
  async function run(batch: T[]): Promise<boolean> {
    try {
      await opts.write(batch);
      return false;
    } catch (err) {
      let answer: unknown;
      try {
        answer = await opts.onFailure(batch, err);
      } catch {
        return false;
      }
      if (answer !== 'requeue') return false;
      queue = batch.concat(head === 0 ? queue : queue.slice(head));
      head = 0;
      queuedWeight += weightOf(batch);
      dropOldest();
      return true;
    }
  }

  function start(): Promise<void> {
    clearTimer();
    const batch = head === 0 ? queue : queue.slice(head);
    queue = [];
    head = 0;
    queuedWeight = 0;
    const waiting = next;
    next = null;
    reportDrops();
    const round = run(batch).then((requeued) => {
      current = null;
      waiting?.resolve();
      if (size() === 0) {
        // only drops can empty a queue someone waits on (they leave maxQueued): nothing to write
        next?.resolve();
        next = null;
      } else if (requeued && !next && !(closed && size() > batch.length)) {
        // a batch handed back waits before it is tried again, so a database that is
        // down is not retried in a loop
        if (!closed) {
          retrying = true;
          timer = setTimeout(onTimer, maxWaitMs);
        }
      } else if (chain || next || closed || queuedWeight >= maxBatch) {
        // on close, items that came during the failed write still get their one try
        void start();
      } else if (timer === null) {
        timer = setTimeout(onTimer, maxWaitMs);
      }
    });
    current = round;
    return round;
  }

  function add(item: T): void {
    queue.push(item);
    queuedWeight += weight ? weight(item) : 1;
    if (maxQueued !== undefined && size() > maxQueued) dropOldest();
    // a write in flight takes this batch as soon as it ends
    if (current !== null) return;
    if (closed || (queuedWeight >= maxBatch && !retrying)) void start();
    else if (timer === null) timer = setTimeout(onTimer, maxWaitMs);
  }

  function flush(): Promise<void> {
    if (size() === 0) return current ?? RESOLVED;
    if (current === null) return start();
    if (!next) {
      let resolve = () => {};
      const promise = new Promise<void>((r) => {
        resolve = r;
      });
      next = { promise, resolve };
    }
    return next.promise;
  }

  async function close(): Promise<void> {
    closed = true;
    clearTimer();
    await flush();
    // items added after close are written at once: wait for those too
    while (current !== null) await current;
    reportDrops();
  }

  return {
    add,
    flush,
    close,
    get queued() {
      return size();
    },
  };
}
