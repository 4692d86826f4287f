import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { createDatabase } from '../db/client.ts';
import type { PGliteThread } from '../db/pglite-thread.ts';
import { poll } from './cluster.ts';
import { createMerchantWithKey, type TestApp, testConfig, verify } from './helper.ts';

/** The thread under the app's database (drizzle keeps its client as `$client`). */
const threadOf = (app: { database: { db: unknown } }) =>
  (app.database.db as { $client: PGliteThread }).$client as unknown as { worker: { terminate(): Promise<number> } };

describe('the embedded database thread dies', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sillage-pglite-thread-'));
  let app: TestApp | undefined;
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('on its data folder, the service opens it again by itself: ready again, data kept, keys work', async () => {
    const database = await createDatabase({ database: { kind: 'pglite', dataDir: join(dir, 'pglite') } });
    const built = await buildApp({ config: testConfig(), database, logger: false });
    await built.ready();
    app = Object.assign(built, { dropDatabase: async () => {} });
    const before = await createMerchantWithKey(app);
    expect((await verify(app, { api_key: before.key })).statusCode).toBe(200);

    // the thread ends (out of memory in the thread, a WebAssembly abort…): what the process sees is its exit
    await threadOf(app).worker.terminate();
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);

    // not for ever: ready again within seconds, without a restart of the process
    await poll(
      'the service to be ready again',
      async () => (await (app as TestApp).inject({ method: 'GET', url: '/readyz' })).statusCode === 200,
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    // what was stored before is there, and new writes work
    const after = await createMerchantWithKey(app);
    expect((await verify(app, { api_key: after.key })).statusCode).toBe(200);
    const merchants = await app.inject({
      method: 'GET',
      url: '/api/admin/merchants',
      headers: { authorization: `Bearer ${testConfig().adminToken}` },
    });
    expect(merchants.statusCode).toBe(200);
    expect(merchants.body).toContain(before.merchant.slug);
  }, 60_000);
});

describe('the embedded database thread dies (in memory)', () => {
  it('calls fail as with a database away, and closing afterwards is not an error', async () => {
    const { PGliteThread } = await import('../db/pglite-thread.ts');
    const pg = await PGliteThread.start(null);
    await pg.query('select 1');
    await (pg as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await expect(pg.query('select 1')).rejects.toThrow(/thread ended/);
    await expect(pg.close()).resolves.toBeUndefined();
  });
});
