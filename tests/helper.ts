import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { buildApp } from '../app.ts';
import { type Config, loadConfig } from '../config.ts';
import { createDatabase, type Database } from '../db/client.ts';
import { createScratchDatabase } from '../db/scratch.ts';
import { createKey } from '../services/keys.ts';
import { createMerchant } from '../services/merchants.ts';
import { contractCheck } from './contract.ts';

/**
 * Tests run on in-memory PGlite by default. With TEST_DATABASE_URL set (CI's
 * second pass) each test file gets a fresh PostgreSQL database of its own, and
 * TEST_REDIS_URL turns on the shared rate-limit store.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;
export const CONTRACT_REPORTS = join(fileURLToPath(new URL('..', import.meta.url)), 'reports', 'contract');
export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
export const LEAD_KEY = 'cd'.repeat(32);

export function testConfig(env: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    DATABASE_URL: 'memory:',
    LOG_LEVEL: 'silent',
    // the demo merchant and its 46 products would show up in every test's data; a test asks for them
    SEED_DEMO: 'false',
    // many tests send large bodies back to back, faster than the budget of strangers' large bodies
    // refills: it is off unless a test turns it on (tests/security/large-bodies.test.ts holds it)
    LARGE_BODY_BYTES_PER_SECOND: '0',
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
  opts: { logStream?: { write(line: string): void }; matcherIdleMs?: number } = {},
): Promise<TestApp> {
  const { database, drop } = await createTestDatabase();
  const app = await buildApp({
    config: testConfig(env),
    database,
    ...(opts.matcherIdleMs ? { matcherIdleMs: opts.matcherIdleMs } : {}),
    ...(opts.logStream ? { logStream: opts.logStream } : { logger: false }),
  });
  setup?.(app);
  await app.ready();
  return Object.assign(holdToContract(app), { dropDatabase: drop });
}

/** What the contract check found wrong in the answers an app gave (tests/contract.ts). */
const violations = new WeakMap<object, string[]>();
/** …and the operations and statuses it checked, written to reports/contract/ for `npm run test:contract-coverage` */
const contractSeen = new WeakMap<object, Set<string>>();

/**
 * Every answer this app gives through `inject` is checked against the
 * published document (the whole one, admin operations included);
 * closeTestApp fails with what did not match.
 */
function holdToContract<A extends Awaited<ReturnType<typeof buildApp>>>(app: A): A {
  const check = contractCheck(app.swagger() as never);
  const found: string[] = [];
  violations.set(app, found);
  contractSeen.set(app, check.seen);
  const inject = app.inject.bind(app) as (opts: unknown) => Promise<LightMyRequestResponse>;
  const checked = (opts: unknown) => {
    if (typeof opts !== 'object' && typeof opts !== 'string') return (app.inject as (o?: unknown) => unknown)(opts);
    return inject(opts).then((res) => {
      const o = (typeof opts === 'string' ? { url: opts } : opts) as { method?: string; url?: string; path?: string };
      const problem = check.check({
        method: o.method ?? 'GET',
        url: o.url ?? o.path ?? '/',
        statusCode: res.statusCode,
        headers: res.headers,
        body: res.body,
      });
      if (problem) found.push(problem);
      return res;
    });
  };
  return Object.assign(app, { inject: checked as unknown as A['inject'] });
}

export async function closeTestApp(app: TestApp | undefined) {
  if (!app) return;
  await app.close();
  await app.dropDatabase();
  const seen = contractSeen.get(app);
  if (seen?.size) {
    mkdirSync(CONTRACT_REPORTS, { recursive: true });
    writeFileSync(join(CONTRACT_REPORTS, `seen-${process.pid}-${randomUUID()}.txt`), [...seen].join('\n'));
  }
  const found = violations.get(app) ?? [];
  if (found.length > 0) {
    throw new Error(
      `${found.length} answers the OpenAPI document does not describe:\n${found.slice(0, 20).join('\n')}`,
    );
  }
}

let counter = 0;
/** A service with a platform's app off (no secrets): every one of `requests` is `404 platform_not_configured`. */
export async function expectPlatformOff(requests: InjectOptions[], env: Record<string, string | undefined> = {}) {
  const off = await buildTestApp(env);
  try {
    for (const req of requests) {
      const r = await off.inject(req);
      expect(r.statusCode, String(req.url)).toBe(404);
      expect(r.json()).toMatchObject({ code: 'platform_not_configured' });
    }
  } finally {
    await closeTestApp(off);
  }
}

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

/** A lead with consent, as the widget reports it for a scored session. */
export function submitLead(
  app: TestApp,
  key: string,
  session: string,
  contact: { email?: string; phone?: string },
  origin = 'https://shop.example',
) {
  return app.inject({
    method: 'POST',
    url: '/api/widget/event',
    payload: {
      api_key: key,
      session_id: session,
      type: 'lead_submitted',
      ...contact,
      consent: true,
      consent_version: 'v1',
    },
    headers: { origin },
  });
}

/** Writes `text` to a file of this name in a fresh temporary folder; answers its path. */
export function tempFile(name: string, text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sillage-')), name);
  writeFileSync(file, text);
  return file;
}
