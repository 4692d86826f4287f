import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { createDatabase, STATEMENT_TIMEOUT_FACTOR } from '../db/client.ts';
import { AbandonedWrite, CommitGuard, withDeadline } from '../lib/deadline.ts';
import { isDatabaseUnavailable } from '../lib/errors.ts';
import { ADMIN_READ_TIMEOUT_FACTOR, ADMIN_WRITE_TIMEOUT_FACTOR } from '../routes/admin/index.ts';
import { events } from '../schema/index.ts';
import {
  adminHeaders,
  createMerchantWithKey,
  createTestDatabase,
  TEST_DATABASE_URL,
  type TestApp,
  testConfig,
} from './helper.ts';

describe('withDeadline', () => {
  it('settles as the work does when it is in time, and with the timeout error when it is not', async () => {
    await expect(withDeadline(Promise.resolve(7), 50, () => new Error('late'))).resolves.toBe(7);
    await expect(withDeadline(Promise.reject(new Error('own')), 50, () => new Error('late'))).rejects.toThrow('own');
    const never = new Promise<number>(() => {});
    const started = performance.now();
    await expect(withDeadline(never, 30, () => new Error('late'))).rejects.toThrow('late');
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });
});

describe('CommitGuard: "not stored" is never followed by a commit', () => {
  it('a guard given up before the commit makes the transaction throw instead of committing', () => {
    const g = new CommitGuard();
    g.stillWanted();
    expect(g.abandon()).toBe(true);
    expect(() => g.stillWanted()).toThrow(AbandonedWrite);
    expect(() => g.beforeCommit()).toThrow(AbandonedWrite);
    expect(g.committing).toBe(false);
  });

  it('once the commit may be on its way, giving up is refused: the waiter cannot say "not stored"', () => {
    const g = new CommitGuard();
    g.beforeCommit();
    expect(g.committing).toBe(true);
    expect(g.abandon()).toBe(false);
    expect(g.committing).toBe(true);
  });
});

/**
 * A database that answers late rather than never: the events table is locked
 * by another connection, so an event's transaction waits on it past
 * DB_TIMEOUT_MS, and goes on once the lock is released.
 */
describe.runIf(TEST_DATABASE_URL)('a request past DB_TIMEOUT_MS, on PostgreSQL', () => {
  const DB_TIMEOUT_MS = 100;
  let app: TestApp;
  let databaseUrl: string;
  /** a test that fails while it holds a lock must not leave it held: afterAll lets go */
  let letGo = () => {};
  let other: postgres.Sql;
  beforeAll(async () => {
    const { database, url, drop } = await createTestDatabase();
    databaseUrl = url as string;
    // opened without a statement timeout: a lock wait stands in for a database that does not answer
    const built = await buildApp({
      config: testConfig({ DB_TIMEOUT_MS: String(DB_TIMEOUT_MS) }),
      database,
      logger: false,
    });
    await built.ready();
    app = Object.assign(built, { dropDatabase: drop });
    other = postgres(url as string, { max: 1, onnotice: () => {} });
  });
  /** Holds a table locked from another connection (a database that answers late), until released. */
  async function lockTable(table: 'events' | 'merchants') {
    let release = () => {};
    const released = new Promise<void>((r) => {
      release = r;
    });
    letGo = release;
    let locked = () => {};
    const isLocked = new Promise<void>((r) => {
      locked = r;
    });
    const holder = other.begin(async (tx) => {
      await tx.unsafe(`lock table ${table} in access exclusive mode`);
      locked();
      await released;
    });
    await isLocked;
    return {
      release: async () => {
        release();
        await holder;
      },
    };
  }
  afterAll(async () => {
    letGo();
    await other?.end();
    await app?.close();
    await app?.dropDatabase();
  });

  it('is answered 503 database_unavailable in time, rolls back when the database comes back, and a resend is stored once', async () => {
    const { key } = await createMerchantWithKey(app);
    const eventId = `late-${randomUUID()}`;
    const send = () =>
      app.inject({
        method: 'POST',
        url: '/api/widget/event',
        headers: { origin: 'https://shop.example' },
        payload: { api_key: key, type: 'widget_opened', event_id: eventId },
      });
    const stored = async () =>
      (await app.db.select({ id: events.id }).from(events).where(sql`${events.eventId} = ${eventId}`)).length;

    const lock = await lockTable('events');
    const started = performance.now();
    const res = await send();
    const waited = performance.now() - started;
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toMatchObject({ code: 'database_unavailable' });
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(waited).toBeLessThan(DB_TIMEOUT_MS + 1500);

    await lock.release();
    // the transaction that waited on the lock now runs to its end, and rolls back there
    await new Promise((r) => setTimeout(r, 300));
    expect(await stored()).toBe(0);

    const again = await send();
    expect(again.statusCode, again.body).toBe(202);
    expect(again.json()).toEqual({ accepted: 1, duplicates: 0 });
    expect(await stored()).toBe(1);
  });

  it('an admin request waits at most a multiple of DB_TIMEOUT_MS: a read is answered database_unavailable, a change write_outcome_unknown; the app serves on once the database answers', async () => {
    const lock = await lockTable('merchants');
    const started = performance.now();
    const timed = async (
      res: Promise<{ statusCode: number; body: string; headers: Record<string, unknown>; json(): unknown }>,
    ) => {
      const r = await res;
      return { r, ms: performance.now() - started };
    };
    const [read, change] = await Promise.all([
      timed(app.inject({ method: 'GET', url: '/api/admin/merchants', headers: adminHeaders })),
      timed(
        app.inject({
          method: 'POST',
          url: '/api/admin/merchants',
          headers: adminHeaders,
          payload: { name: 'Late shop', slug: `late-${randomUUID().slice(0, 8)}` },
        }),
      ),
    ]);
    expect(read.r.statusCode, read.r.body).toBe(503);
    expect(read.r.json()).toMatchObject({ code: 'database_unavailable' });
    expect(read.r.headers['retry-after']).toMatch(/^\d+$/);
    expect(read.ms).toBeGreaterThanOrEqual(ADMIN_READ_TIMEOUT_FACTOR * DB_TIMEOUT_MS - 50);
    expect(read.ms).toBeLessThan(ADMIN_READ_TIMEOUT_FACTOR * DB_TIMEOUT_MS + 2000);
    expect(change.r.statusCode, change.r.body).toBe(503);
    expect(change.r.json()).toMatchObject({ code: 'write_outcome_unknown' });
    expect(change.ms).toBeGreaterThanOrEqual(ADMIN_WRITE_TIMEOUT_FACTOR * DB_TIMEOUT_MS - 50);
    expect(change.ms).toBeLessThan(ADMIN_WRITE_TIMEOUT_FACTOR * DB_TIMEOUT_MS + 2000);
    await lock.release();
    const after = await app.inject({ method: 'GET', url: '/api/admin/merchants', headers: adminHeaders });
    expect(after.statusCode).toBe(200);
  });

  it(`the service's connections have PostgreSQL end a statement after ${STATEMENT_TIMEOUT_FACTOR} × DB_TIMEOUT_MS (one given up on holds no connection), answered as the database being unavailable`, async () => {
    const db = await createDatabase({ database: { kind: 'postgres', url: databaseUrl }, dbTimeoutMs: DB_TIMEOUT_MS });
    try {
      const started = performance.now();
      const err = await db.db.execute(sql`select pg_sleep(5)`).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ cause: expect.objectContaining({ code: '57014' }) });
      expect(isDatabaseUnavailable(err)).toBe(true);
      expect(performance.now() - started).toBeLessThan(4000);
      // the connection serves at once again
      expect(await db.db.execute(sql`select 1 as one`)).toHaveLength(1);
    } finally {
      await db.close();
    }
  });
});
