import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import type { Config } from '../config.ts';
import { withDeadline } from '../lib/deadline.ts';
import { fromRoot } from '../lib/root.ts';
import * as schema from '../schema/index.ts';
import { PGliteThread } from './pglite-thread.ts';

export const MIGRATIONS_FOLDER = fromRoot('drizzle');

/**
 * The one database type the code uses. Both drivers speak the same PostgreSQL
 * dialect through Drizzle; the PGlite instance is cast to this type at the
 * single place it is created.
 */
export type Db = PostgresJsDatabase<typeof schema>;
/** A transaction or the database itself: repository functions accept either. */
export type DbOrTx = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

/** `db.execute` answers rows as an array (postgres.js) or as `{rows}` (PGlite). */
export const rowsOf = <T>(result: unknown): T[] =>
  Array.isArray(result) ? (result as T[]) : (((result as { rows?: T[] }).rows ?? []) as T[]);

/**
 * Texts as one PostgreSQL text[] parameter: each element quoted (a spelling holds spaces, and any
 * text may hold a comma, a quote or a brace), so the array has exactly these elements.
 */
export const textArray = (xs: readonly string[]) =>
  sql`${`{${xs.map((x) => `"${x.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`}::text[]`;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** the PostgreSQL connection URL (the background jobs open their own small pool on it); none on PGlite */
  url?: string;
  /**
   * Runs a statement whose text never changes and which the service sends many
   * times a second (the session log's batch insert). On PostgreSQL it is a
   * prepared statement, parsed and planned once per connection (db.execute
   * describes and plans it on every call, one more round trip each time); on
   * PGlite it is db.execute. Resolves with its rows.
   */
  executePrepared(query: SQL): Promise<unknown[]>;
  /** applies pending migrations; safe when several instances start at once */
  migrate(): Promise<void>;
  /** resolves when the database answers within timeoutMs, rejects otherwise */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Whether `db` is the embedded PGlite: this process is then its only client (its folder is locked
 * against a second opener: lockDataDir), so whatever changes in it, this process changed. It also
 * runs one transaction at a time: a read waits for any write transaction under way to end.
 */
export function isEmbedded(db: Db): boolean {
  return (db as { $client?: unknown }).$client instanceof PGliteThread;
}

/** Two instances may start together: one migrates, the other waits on this lock. */
const MIGRATION_LOCK_ID = 727_431_205;

/**
 * PostgreSQL ends a statement that runs longer than this many DB_TIMEOUT_MS (30 s by default), and
 * a session idle inside a transaction as long: what a request gave up on does not hold a
 * connection or its locks for ever. (A database that does not answer at all is the requests'
 * own deadline's to handle: lib/deadline.ts.)
 */
export const STATEMENT_TIMEOUT_FACTOR = 10;

export async function createDatabase(
  config: Pick<Config, 'database'> & Partial<Pick<Config, 'dbTimeoutMs'>>,
  /** onLost: the embedded database's thread ended by itself, or could not be opened again (it is retried) */
  opts: { onLost?: (err: Error) => void } = {},
): Promise<Database> {
  const target = config.database;
  if (target.kind === 'postgres') {
    return createPostgres(target.url, config.dbTimeoutMs ? STATEMENT_TIMEOUT_FACTOR * config.dbTimeoutMs : undefined);
  }
  return createPglite(target.dataDir, target.sharedBuffersMb, opts.onLost);
}

const withTimeout = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  withDeadline(promise, ms, () => new Error(`${what} timed out after ${ms} ms`));

function createPostgres(url: string, statementTimeoutMs?: number): Database {
  const client = postgres(url, {
    max: 10,
    ...(statementTimeoutMs
      ? {
          connection: {
            statement_timeout: statementTimeoutMs,
            idle_in_transaction_session_timeout: statementTimeoutMs,
          },
        }
      : {}),
    // fail fast so a request during an outage gets a 503, not a hang
    connect_timeout: 5,
    // Seconds before a connection that failed is opened again; a query waits that long
    // first. postgres.js's default grows with every failure in the pool (shared by its 10
    // connections) up to 20 s, so after a few seconds of outage requests hung for up to
    // 20 s and the service came back that long after PostgreSQL did. Capped at half a
    // second: a refused connection costs PostgreSQL nothing, a hung request costs a shopper.
    backoff: (retries: number) => Math.min(0.05 * retries, 0.5),
    idle_timeout: 30,
    // The type lookup postgres.js runs on each new connection only serves custom array
    // types (ours are built-in); killed mid-lookup during an outage, it rejects where
    // nothing can catch it, which would take the process down.
    fetch_types: false,
    onnotice: () => {},
  });
  const db = drizzlePostgres(client, { schema });
  const dialect = new PgDialect();
  return {
    db,
    kind: 'postgres',
    url,
    async executePrepared(query) {
      const { sql: text, params } = dialect.sqlToQuery(query);
      return [...(await client.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true }))];
    },
    async migrate() {
      // A dedicated connection: a session-level advisory lock must be taken
      // and released on the same connection, which a pool does not promise.
      const lockClient = postgres(url, { max: 1, connect_timeout: 10, onnotice: () => {} });
      try {
        await lockClient`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
        await migratePostgres(drizzlePostgres(lockClient), { migrationsFolder: MIGRATIONS_FOLDER });
        await lockClient`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
      } finally {
        await lockClient.end({ timeout: 5 });
      }
    },
    async ping(timeoutMs = 2000) {
      await withTimeout(client`select 1`, timeoutMs, 'database ping');
    },
    async close() {
      await client.end({ timeout: 5 });
    },
  };
}

async function createPglite(
  dataDir: string | null,
  sharedBuffersMb: number | undefined,
  onLost?: (err: Error) => void,
): Promise<Database> {
  let releaseLock = () => {};
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    releaseLock = lockDataDir(dataDir);
  }
  let pg: PGliteThread;
  try {
    // in a thread of its own: its WebAssembly PostgreSQL does not take the request thread's time
    // (on its data folder, opened again in a new thread if that one ends by itself)
    pg = await PGliteThread.start(dataDir, { onLost, sharedBuffersMb });
  } catch (err) {
    releaseLock();
    throw err;
  }
  const db = drizzlePglite(pg as unknown as PGlite, { schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    async executePrepared(query) {
      return rowsOf(await db.execute(query));
    },
    async migrate() {
      await migratePglite(drizzlePglite(pg as unknown as PGlite), { migrationsFolder: MIGRATIONS_FOLDER });
    },
    async ping(timeoutMs = 2000) {
      await withTimeout(db.execute(sql`select 1`), timeoutMs, 'database ping');
    },
    async close() {
      try {
        if (!pg.closed) await pg.close();
      } finally {
        releaseLock();
      }
    },
  };
}

export class DatabaseInUseError extends Error {
  override name = 'DatabaseInUseError';
}

/**
 * PGlite is one process's database: a second process opening the same folder
 * would corrupt it. A pid file next to it refuses the second opener; a file
 * left by a process that no longer runs is taken over.
 */
function lockDataDir(dataDir: string): () => void {
  const lockPath = `${resolve(dataDir)}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      // a start that fails after this point (a migration, a taken port) exits without closing the
      // database: the lock goes with the process all the same
      const release = () => {
        process.off('exit', release);
        rmSync(lockPath, { force: true });
      };
      process.on('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(lockPath, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
        throw new DatabaseInUseError(
          `The embedded database ${dataDir} is in use by process ${pid}. Stop it first, or use the admin API of the running service.`,
        );
      }
      rmSync(lockPath, { force: true });
    }
  }
  throw new DatabaseInUseError(`Could not lock the embedded database ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
