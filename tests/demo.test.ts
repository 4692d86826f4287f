import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInUser } from '../services/console-users.ts';
import { DEMO_OWNER_EMAIL, DEMO_SLUG, demoOrigins, ensureDemo } from '../services/demo.ts';
import { listKeys, revokeKey } from '../services/keys.ts';
import { buildTestApp, closeTestApp, type TestApp, verify } from './helper.ts';

let app: TestApp;
const dir = mkdtempSync(join(tmpdir(), 'sillage-demo-'));
const keyFile = join(dir, 'demo-key');
beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(async () => {
  await closeTestApp(app);
  rmSync(dir, { recursive: true, force: true });
});

describe('demo data on the embedded default', () => {
  it('creates the demo merchant and a working test key, saved privately for the next start', async () => {
    const demo = await ensureDemo(app.db, app.config, keyFile);
    expect(demo.created).toBe(true);
    expect(demo.merchant.slug).toBe(DEMO_SLUG);
    expect(demo.key).toMatch(/^pk_test_/);
    expect(readFileSync(keyFile, 'utf8').trim()).toBe(demo.key);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const res = await verify(app, { api_key: demo.key }, { origin: 'http://127.0.0.1:3000' });
    expect(res.statusCode).toBe(200);
    expect(res.json().test_mode).toBe(true);
  });

  it('reuses the saved key on the next start instead of piling up keys', async () => {
    const first = readFileSync(keyFile, 'utf8').trim();
    const again = await ensureDemo(app.db, app.config, keyFile);
    expect(again).toMatchObject({ key: first, created: false });
    expect(await listKeys(app.db, DEMO_SLUG)).toHaveLength(1);
  });

  it('gives the demo merchant a console owner whose password is kept privately and printed again next start', async () => {
    const first = await ensureDemo(app.db, app.config, keyFile);
    const file = join(dir, 'demo-console');
    expect(first.console.email).toBe(DEMO_OWNER_EMAIL);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.console.password);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await signInUser(app.db, first.console.email, first.console.password)).toMatchObject({ role: 'owner' });
    const again = await ensureDemo(app.db, app.config, keyFile);
    expect(again.console.password).toBe(first.console.password);
    // a lost password file: a new password, the old one no longer opens the console
    rmSync(file);
    const fresh = await ensureDemo(app.db, app.config, keyFile);
    expect(fresh.console.password).not.toBe(first.console.password);
    expect(await signInUser(app.db, DEMO_OWNER_EMAIL, first.console.password)).toBeNull();
  });

  it('replaces a revoked demo key', async () => {
    const [k] = await listKeys(app.db, DEMO_SLUG);
    await revokeKey(app.db, k?.id ?? '');
    const next = await ensureDemo(app.db, app.config, keyFile);
    expect(next.created).toBe(true);
    expect((await verify(app, { api_key: next.key })).statusCode).toBe(200);
  });

  it('replaces a saved key that no longer accepts every demo origin (PORT changed), revoking the old one', async () => {
    const before = readFileSync(keyFile, 'utf8').trim();
    const moved = { ...app.config, port: 4321, publicBaseUrl: 'http://127.0.0.1:4321' };
    expect(demoOrigins(moved).every((o) => o.endsWith(':4321'))).toBe(true);
    const next = await ensureDemo(app.db, moved, keyFile);
    expect(next.created).toBe(true);
    expect(next.key).not.toBe(before);
    expect(readFileSync(keyFile, 'utf8').trim()).toBe(next.key);
    // the widget on the storefront's new origin works; the old key is revoked, not left behind
    expect((await verify(app, { api_key: next.key }, { origin: 'http://localhost:4321' })).statusCode).toBe(200);
    const keys = await listKeys(app.db, DEMO_SLUG);
    expect(keys.find((k) => before.startsWith(k.prefix))?.revoked).toBe(true);
    expect(keys.filter((k) => !k.revoked)).toHaveLength(1);
    // and the next start on the same port keeps it
    expect(await ensureDemo(app.db, moved, keyFile)).toMatchObject({ key: next.key, created: false });
  });

  it('uses only the origin of a PUBLIC_BASE_URL with a path', () => {
    expect(demoOrigins({ publicBaseUrl: 'https://shop.example/sillage', port: 3000 })).toEqual([
      'https://shop.example',
      'http://localhost:3000',
      'http://127.0.0.1:3000',
    ]);
  });
});

describe('demo product feed', () => {
  it('loads 40+ mixed Arabic and English listings once, most matched, a few that cannot be', async () => {
    // the starts above had no catalog snapshot, so this is the first that loads the feed
    const demo = await ensureDemo(app.db, app.config, null, app.catalog.current());
    expect(demo.feed).toMatchObject({ rejected: 0 });
    const { listProducts } = await import('../services/products.ts');
    const { rows, total } = await listProducts(app.db, DEMO_SLUG, { limit: 1000, offset: 0 });
    expect(total).toBeGreaterThanOrEqual(40);
    expect(rows.some((r) => /[\u0600-\u06FF]/.test(r.name))).toBe(true);
    expect(rows.filter((r) => r.matchStatus === 'matched').length).toBeGreaterThanOrEqual(35);
    expect(rows.filter((r) => r.matchStatus === 'unmatched').length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.matchStatus === 'partial').length).toBeGreaterThan(0);
    expect(
      rows.every((r) => r.currency === 'SAR' && r.productUrl?.startsWith(`${app.config.publicBaseUrl}/demo/products/`)),
    ).toBe(true);
    // a second start leaves the merchant's products alone
    expect((await ensureDemo(app.db, app.config, null, app.catalog.current())).feed).toBeNull();
  });
});
