import { randomBytes, randomUUID } from 'node:crypto';
import { buildApp } from '../app.ts';
import { type Config, loadConfig } from '../config.ts';
import { createDatabase, type Database } from '../db/client.ts';
import { createScratchDatabase } from '../db/scratch.ts';
import { createKey } from '../services/keys.ts';
import { createMerchant } from '../services/merchants.ts';

/**
 * Tests run on in-memory PGlite by default. With TEST_DATABASE_URL set (CI's
 * second pass) each test file gets a fresh PostgreSQL database of its own, and
 * TEST_REDIS_URL turns on the shared rate-limit store.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;
export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
export const LEAD_KEY = 'cd'.repeat(32);

export function testConfig(env: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    DATABASE_URL: 'memory:',
    LOG_LEVEL: 'silent',
    // the demo merchant and its 46 products would show up in every test's data; a test asks for them
    SEED_DEMO: 'false',
    ADMIN_TOKEN,
    LEAD_ENCRYPTION_KEY: LEAD_KEY,
    ...(TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL } : {}),
    ...env,
  });
}

/** A fresh, migrated database for one test file; dropped again by the returned close. */
export async function createTestDatabase(): Promise<{
  database: Database;
  url: string | null;
  drop: () => Promise<void>;
}> {
  if (!TEST_DATABASE_URL) {
    const database = await createDatabase({ database: { kind: 'pglite', dataDir: null } });
    return { database, url: null, drop: async () => {} };
  }
  return createScratchDatabase(TEST_DATABASE_URL, 'sillage_test');
}

export type TestApp = Awaited<ReturnType<typeof buildApp>> & { dropDatabase: () => Promise<void> };

/** The app exactly as production builds it, on a database of its own, logger off (or into `logStream`). */
export async function buildTestApp(
  env: Record<string, string | undefined> = {},
  /** runs before ready(), e.g. to add a test-only route */
  setup?: (app: Awaited<ReturnType<typeof buildApp>>) => void,
  opts: { logStream?: { write(line: string): void } } = {},
): Promise<TestApp> {
  const { database, drop } = await createTestDatabase();
  const app = await buildApp({
    config: testConfig(env),
    database,
    ...(opts.logStream ? { logStream: opts.logStream } : { logger: false }),
  });
  setup?.(app);
  await app.ready();
  return Object.assign(app, { dropDatabase: drop });
}

export async function closeTestApp(app: TestApp | undefined) {
  if (!app) return;
  await app.close();
  await app.dropDatabase();
}

let counter = 0;
/** A merchant with one key; origins default to a shop origin used across tests. */
export async function createMerchantWithKey(
  app: TestApp,
  opts: { mode?: 'test' | 'live'; origins?: string[]; slug?: string } = {},
) {
  const slug = opts.slug ?? `shop-${process.pid}-${++counter}-${randomBytes(3).toString('hex')}`;
  const merchant = await createMerchant(app.db, { name: `Shop ${slug}`, slug });
  const key = await createKey(app.db, merchant.id, {
    mode: opts.mode ?? 'live',
    allowedOrigins: opts.origins ?? ['https://shop.example'],
  });
  return { merchant, key: key.key, keyId: key.id };
}

export const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** A score answered with this key (as a shopper's quiz is), its session id returned: what a lead refers to. */
export async function scoredSession(app: TestApp, key: string, origin = 'https://shop.example'): Promise<string> {
  const sessionId = randomUUID();
  const res = await app.inject({
    method: 'POST',
    url: '/api/widget/score',
    payload: { api_key: key, session_id: sessionId, quiz: { families: ['oud'] } },
    headers: { origin },
  });
  if (res.statusCode !== 200) throw new Error(`score for a session failed: ${res.statusCode} ${res.body}`);
  return sessionId;
}

export function verify(app: TestApp, body: unknown, headers: Record<string, string> = {}) {
  return app.inject({ method: 'POST', url: '/api/widget/verify', payload: body as object, headers });
}
