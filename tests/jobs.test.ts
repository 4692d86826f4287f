import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../db/client.ts';
import { CONFLICT_RUNS, cronEvery } from '../plugins/app/jobs.ts';
import { buildTestApp, closeTestApp, TEST_DATABASE_URL, type TestApp } from './helper.ts';

/**
 * The background work's runner (plugins/app/jobs.ts), as the service's own work uses it: on the
 * embedded database an in-process queue, on PostgreSQL pg-boss; the same rules either way.
 */
describe('every N minutes, as a cron expression', () => {
  it('writes the divisors of an hour and of a day, and refuses what cron cannot say', () => {
    expect(cronEvery(1)).toBe('* * * * *');
    expect(cronEvery(15)).toBe('*/15 * * * *');
    expect(cronEvery(60)).toBe('0 */1 * * *');
    expect(cronEvery(360)).toBe('0 */6 * * *');
    expect(cronEvery(1440)).toBe('0 0 * * *');
    for (const bad of [0, 7, 45, 90, 300, 2880, 1.5, -60]) expect(() => cronEvery(bad), String(bad)).toThrow();
  });
});

/** A gate a test opens when it wants a run to finish. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { open, opened };
}

let app: TestApp;
const runs: { name: string; data: unknown }[] = [];
let held = gate();
let concurrent = 0;
let maxConcurrent = 0;

beforeAll(async () => {
  app = await buildTestApp({}, (a) => {
    a.jobs.define<{ n: number }>('test.slow', {
      async run(data) {
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        runs.push({ name: 'test.slow', data });
        await held.opened;
        concurrent--;
      },
    });
    a.jobs.define<{ n: number }>('test.fails', {
      async run(data) {
        runs.push({ name: 'test.fails', data });
        if (data.n === 1) throw new Error('this run fails');
      },
    });
    a.jobs.define<{ n: number; code: string; times: number }>('test.conflicts', {
      async run(data) {
        runs.push({ name: 'test.conflicts', data });
        const mine = runs.filter((r) => r.name === 'test.conflicts' && (r.data as { n: number }).n === data.n).length;
        if (mine <= data.times) throw Object.assign(new Error('deadlock detected'), { code: data.code });
      },
    });
    expect(() => a.jobs.define('test.slow', { run: async () => {} })).toThrow(/twice/);
    expect(() => a.jobs.define('test.odd', { run: async () => {}, everyMinutes: 7 })).toThrow(/divisor/);
  });
});
afterAll(() => closeTestApp(app));

describe(`the runner (${TEST_DATABASE_URL ? 'pg-boss on PostgreSQL' : 'in process, on the embedded database'})`, () => {
  it('is the queue the database calls for', () => {
    expect(app.jobs.kind).toBe(TEST_DATABASE_URL ? 'pg-boss' : 'in-process');
  });

  it('refuses work defined after the start, or of a name never defined', async () => {
    expect(() => app.jobs.define('test.late', { run: async () => {} })).toThrow(/after the app started/);
    await expect(app.jobs.send('test.unknown', {})).rejects.toThrow(/no job named/);
  });

  it('runs one run of a name at a time, and a key waits once however often it is sent', async () => {
    runs.length = 0;
    held = gate();
    await app.jobs.send('test.slow', { n: 1 }, 'k');
    await waitFor(() => runs.length === 1);
    // k runs; sent three more times, it waits once
    for (const n of [2, 3, 4]) await app.jobs.send('test.slow', { n }, 'k');
    await app.jobs.send('test.slow', { n: 5 }, 'other');
    held.open();
    await app.jobs.drain(20_000);
    const ns = runs.map((r) => (r.data as { n: number }).n);
    expect(ns[0]).toBe(1);
    expect(ns.filter((n) => n >= 2 && n <= 4)).toHaveLength(1);
    expect(ns).toContain(5);
    expect(ns).toHaveLength(3);
    expect(maxConcurrent).toBe(1);
  });

  it('a failed run does not stop the ones after it', async () => {
    runs.length = 0;
    await app.jobs.send('test.fails', { n: 1 });
    await app.jobs.send('test.fails', { n: 2 });
    await app.jobs.drain(20_000);
    expect(runs.map((r) => (r.data as { n: number }).n).sort()).toEqual([1, 2]);
  });

  it('a run the database ends for a deadlock runs again at once, up to CONFLICT_RUNS times; any other error ends it', async () => {
    runs.length = 0;
    const ran = (n: number) => runs.filter((r) => (r.data as { n: number }).n === n).length;
    await app.jobs.send('test.conflicts', { n: 1, code: '40P01', times: 2 });
    await app.jobs.send('test.conflicts', { n: 2, code: '40001', times: CONFLICT_RUNS });
    await app.jobs.send('test.conflicts', { n: 3, code: '23505', times: 1 });
    await app.jobs.drain(20_000);
    // two deadlocks, then done; a conflict every time: CONFLICT_RUNS runs, then it fails; not a conflict: once
    expect([ran(1), ran(2), ran(3)]).toEqual([3, CONFLICT_RUNS, 1]);
  });

  it("schedules the service's recurring work: the feed dispatch every minute, the retention purge every 6 hours", async () => {
    if (!TEST_DATABASE_URL) return; // in process the timers are the schedule (plugins/app/jobs.ts)
    const rows = rowsOf<{ name: string; cron: string }>(
      await app.db.execute(sql`select name, cron from pgboss.schedule order by name`),
    );
    expect(rows).toEqual(
      expect.arrayContaining([
        { name: 'feeds.dispatch', cron: '* * * * *' },
        { name: 'retention.purge', cron: '0 */6 * * *' },
      ]),
    );
    expect(rows.map((r) => r.name)).not.toContain('catalog.rematch');
  });
});

async function waitFor(check: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
