import { existsSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { fromRoot } from '../lib/root.ts';

/**
 * The embedded PGlite in a thread of its own (db/pglite.worker.mjs), behind the
 * part of PGlite's interface drizzle-orm's PGlite driver and the migrator use:
 * `query`, `exec` and `transaction`. PGlite runs PostgreSQL compiled to
 * WebAssembly; in the request thread its work — the score route's session
 * log above all, ~25 µs of every score request — took the event loop that
 * answers requests (docs/benchmarks.md). In its own thread it takes the
 * machine's other core, as PostgreSQL's own processes do.
 *
 * Calls cross the thread in the order made, and the thread hands them to one
 * PGlite in that order, so queries and transactions queue exactly as they did
 * on a PGlite in this thread. Rows come back as structured clones; an error
 * keeps its message and its own fields (a PostgreSQL `code`, `detail`,
 * `constraint`…), so callers tell a unique violation from the rest as before.
 */

interface Result {
  rows: unknown[];
  fields: { name: string; dataTypeID: number }[];
  affectedRows?: number;
}
type Message =
  | { op: 'query'; text: string; params?: unknown[]; rowMode?: 'array' | 'object'; tx?: number }
  | { op: 'exec'; text: string; tx?: number }
  | { op: 'begin' | 'commit' | 'rollback'; tx: number }
  | { op: 'close' };

/** An error from the thread, rebuilt here with its fields. */
function rebuilt(e: Record<string, unknown>): Error {
  const err = new Error(String(e.message));
  Object.assign(err, e);
  return err;
}

class Connection {
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private failure: Error | null = null;
  /** the thread has ended: every call fails */
  get failed(): boolean {
    return this.failure !== null;
  }

  constructor(private readonly worker: Worker) {
    worker.on('message', (a: { id: number; value?: unknown; error?: Record<string, unknown> }) => {
      const caller = this.waiting.get(a.id);
      if (!caller) return;
      this.waiting.delete(a.id);
      if (a.error) caller.reject(rebuilt(a.error));
      else caller.resolve(a.value);
    });
    const fail = (err: Error) => {
      this.failure = err;
      for (const c of this.waiting.values()) c.reject(err);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) =>
      fail(new Error(this.closing ? 'PGlite is closed' : `the embedded database's thread ended (exit code ${code})`)),
    );
  }

  /** set by close(): calls after it fail as calls to a closed PGlite do */
  closing = false;

  call<T>(m: Message): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ ...m, id });
    });
  }
}

/** A transaction's side of the interface: queries inside it. */
class ThreadTransaction {
  constructor(
    private readonly conn: Connection,
    private readonly tx: number,
  ) {}
  query(text: string, params?: unknown[], options?: { rowMode?: 'array' | 'object' }): Promise<Result> {
    return this.conn.call({ op: 'query', text, params, rowMode: options?.rowMode, tx: this.tx });
  }
  exec(text: string): Promise<Result[]> {
    return this.conn.call({ op: 'exec', text, tx: this.tx });
  }
}

/**
 * A new database's folder as PGlite's initdb makes it, for the installed PGlite version
 * (`npm run db:snapshot` writes it): a database opened on an empty folder (or in memory) is loaded
 * from it instead of running initdb, which holds about 800 MB at its peak where loading holds about
 * 370 (docs/operations.md). Null when there is none for this version: initdb runs, as before.
 */
export function pgliteSnapshot(): string | null {
  try {
    const { version } = JSON.parse(
      readFileSync(fromRoot('node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8'),
    ) as { version: string };
    const file = fromRoot('db', `pglite-initdb-${version}.tar.gz`);
    return existsSync(file) ? file : null;
  } catch {
    return null;
  }
}

/**
 * The embedded PostgreSQL's page cache (shared_buffers) when the configuration names none. initdb
 * writes 128 MB, all of it in PGlite's WebAssembly memory once pages are read: 16 MB holds the pages a
 * score reads (the catalog itself is in the service's memory) and takes about 100 MB less from the
 * process (bench/start.ts, docs/operations.md "Footprint"); pages beyond it are read again from the
 * folder's files, which the operating system caches outside the process.
 */
export const DEFAULT_SHARED_BUFFERS_MB = 16;

/** Starts a thread and waits until its database is open. */
async function openThread(dataDir: string | null, sharedBuffersMb: number): Promise<Worker> {
  const worker = new Worker(fromRoot('db', 'pglite.worker.mjs'), {
    workerData: { dataDir, snapshot: pgliteSnapshot(), sharedBuffersMb },
  });
  let onMessage = (_m: { ready: boolean; error?: Record<string, unknown> }) => {};
  let onError = (_e: Error) => {};
  let onExit = (_code: number) => {};
  const ready = await new Promise<{ ready: boolean; error?: Record<string, unknown> }>((resolve, reject) => {
    onMessage = resolve;
    onError = reject;
    onExit = (code) => reject(new Error(`the embedded database's thread ended (exit code ${code})`));
    worker.once('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
  }).finally(() => {
    worker.off('message', onMessage);
    worker.off('error', onError);
    worker.off('exit', onExit);
  });
  if (!ready.ready) {
    await worker.terminate();
    throw rebuilt(ready.error ?? { message: 'the embedded database did not open' });
  }
  return worker;
}

/** After the thread ended by itself, the next is started this long after (the next delay at each failure, then the last). */
export const REOPEN_DELAYS_MS = [100, 500, 2000, 5000];

export class PGliteThread {
  private txIds = 1;
  closed = false;
  /** reopenings of the database after its thread ended (the first start not counted) */
  reopened = 0;
  private reopening: Promise<void> | null = null;
  /** ends the wait before the next reopening (close) */
  private wake = () => {};

  private constructor(
    private readonly dataDir: string | null,
    private worker: Worker,
    private conn: Connection,
    private readonly sharedBuffersMb: number,
    private readonly onLost?: (err: Error) => void,
  ) {
    this.watch();
  }

  /**
   * Starts the thread and opens the database (`dataDir`, or in memory when null). A thread that
   * ends by itself (out of memory in it, a WebAssembly abort) fails the calls waiting on it; on a
   * data folder the database is then opened again in a new thread, as a restarted process would
   * (calls in between fail as with a database away: 503). In memory there is nothing to open
   * again: calls keep failing and readiness says so.
   */
  static async start(
    dataDir: string | null,
    opts: { onLost?: (err: Error) => void; sharedBuffersMb?: number } = {},
  ): Promise<PGliteThread> {
    const sharedBuffersMb = opts.sharedBuffersMb ?? DEFAULT_SHARED_BUFFERS_MB;
    const worker = await openThread(dataDir, sharedBuffersMb);
    return new PGliteThread(dataDir, worker, new Connection(worker), sharedBuffersMb, opts.onLost);
  }

  /** On the thread's own end (not close()), reopens the database in a new one. */
  private watch() {
    const worker = this.worker;
    worker.once('exit', (code) => {
      if (this.closed || this.worker !== worker || this.dataDir === null) return;
      this.onLost?.(new Error(`the embedded database's thread ended (exit code ${code})`));
      this.reopening ??= this.reopen().finally(() => {
        this.reopening = null;
      });
    });
  }

  private async reopen() {
    for (let attempt = 0; !this.closed; attempt++) {
      await new Promise<void>((r) => {
        const timer = setTimeout(r, REOPEN_DELAYS_MS[Math.min(attempt, REOPEN_DELAYS_MS.length - 1)]);
        this.wake = () => {
          clearTimeout(timer);
          r();
        };
      });
      if (this.closed) return;
      try {
        const worker = await openThread(this.dataDir, this.sharedBuffersMb);
        if (this.closed) {
          await worker.terminate();
          return;
        }
        this.worker = worker;
        this.conn = new Connection(worker);
        this.reopened++;
        this.watch();
        return;
      } catch (err) {
        this.onLost?.(err as Error);
      }
    }
  }

  query(text: string, params?: unknown[], options?: { rowMode?: 'array' | 'object' }): Promise<Result> {
    return this.conn.call({ op: 'query', text, params, rowMode: options?.rowMode });
  }

  exec(text: string): Promise<Result[]> {
    return this.conn.call({ op: 'exec', text });
  }

  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  async transaction<T>(fn: (tx: ThreadTransaction) => Promise<T>): Promise<T> {
    const tx = this.txIds++;
    // the transaction's calls go to the thread it began on, even if another replaces it meanwhile
    const conn = this.conn;
    await conn.call({ op: 'begin', tx });
    let value: T;
    try {
      value = await fn(new ThreadTransaction(conn, tx));
    } catch (err) {
      await conn.call({ op: 'rollback', tx }).catch(() => {});
      throw err;
    }
    await conn.call({ op: 'commit', tx });
    return value;
  }

  /** Closes the database and ends the thread (one that ended by itself is not an error here). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.conn.closing = true;
    // a reopening under way ends first: the data folder is not left to a thread opening it
    this.wake();
    await this.reopening;
    try {
      if (!this.conn.failed) await this.conn.call({ op: 'close' });
    } finally {
      await this.worker.terminate();
    }
  }
}
