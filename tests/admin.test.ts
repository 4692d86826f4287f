import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys } from '../schema/index.ts';
import { adminHeaders, buildTestApp, closeTestApp, type TestApp, verify } from './helper.ts';

let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(() => closeTestApp(app));

const admin = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, headers = adminHeaders) =>
  app.inject({ method, url: `/api/admin${url}`, payload, headers });

describe('admin authentication', () => {
  it('401 without a token or with a wrong one', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: `Basic ${app.config.adminToken}` }]) {
      const res = await admin('GET', '/merchants', undefined, headers as typeof adminHeaders);
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('invalid_admin_token');
    }
  });

  it('is off when ADMIN_TOKEN is unset', async () => {
    const off = await buildTestApp({ ADMIN_TOKEN: undefined });
    const res = await off.inject({ method: 'GET', url: '/api/admin/merchants', headers: adminHeaders });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'admin_disabled' });
    await closeTestApp(off);
  });
});

describe('merchants', () => {
  it('creates, lists and reads a merchant by id or slug', async () => {
    const created = await admin('POST', '/merchants', { name: 'عطور الشرق', slug: 'east-perfumes' });
    expect(created.statusCode).toBe(201);
    const m = created.json();
    expect(m).toMatchObject({ name: 'عطور الشرق', slug: 'east-perfumes' });
    expect(m.id).toMatch(/^[0-9a-f-]{36}$/);
    const list = await admin('GET', '/merchants');
    expect(list.json().merchants.map((x: { slug: string }) => x.slug)).toContain('east-perfumes');
    for (const ref of [m.id, 'east-perfumes']) {
      const one = await admin('GET', `/merchants/${ref}`);
      expect(one.statusCode).toBe(200);
      expect(one.json()).toMatchObject({ id: m.id, catalog: { total: 0, ready: false } });
    }
  });

  it('409 slug_taken for a duplicate slug; nothing else changes', async () => {
    await admin('POST', '/merchants', { name: 'A', slug: 'dup-shop' });
    const res = await admin('POST', '/merchants', { name: 'B', slug: 'dup-shop' });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('slug_taken');
    const names = (await admin('GET', '/merchants'))
      .json()
      .merchants.filter((x: { slug: string }) => x.slug === 'dup-shop');
    expect(names).toEqual([expect.objectContaining({ name: 'A' })]);
  });

  it('400 for a bad slug, a missing name or extra junk types', async () => {
    for (const body of [
      { name: 'X', slug: 'Bad Slug' },
      { slug: 'ok' },
      { name: 'X', slug: '-x-' },
      { name: 5, slug: 'x' },
    ]) {
      const res = await admin('POST', '/merchants', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('validation_failed');
    }
  });

  it('404 merchant_not_found for an unknown merchant', async () => {
    const res = await admin('GET', '/merchants/nobody-here');
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('merchant_not_found');
  });
});

describe('keys', () => {
  it('returns the plaintext once at creation; listings never show it; the database holds only a hash', async () => {
    await admin('POST', '/merchants', { name: 'Keys', slug: 'keys-shop' });
    const res = await admin('POST', '/merchants/keys-shop/keys', {
      mode: 'live',
      allowed_origins: ['https://Keys.example', 'https://*.keys.example'],
    });
    expect(res.statusCode).toBe(201);
    const k = res.json();
    expect(k.key).toMatch(/^pk_live_/);
    expect(k.allowed_origins).toEqual(['https://keys.example', 'https://*.keys.example']);
    expect(k.revoked).toBe(false);
    const list = await admin('GET', '/merchants/keys-shop/keys');
    expect(list.body).not.toContain(k.key);
    expect(list.json().keys[0]).toMatchObject({ id: k.id, prefix: k.key.slice(0, 12) });
    const rows = await app.db.select().from(apiKeys);
    expect(JSON.stringify(rows)).not.toContain(k.key);
    expect((await verify(app, { api_key: k.key }, { origin: 'https://www.keys.example' })).statusCode).toBe(200);
  });

  it('refuses bad origins with a reason, and "*" on live keys', async () => {
    await admin('POST', '/merchants', { name: 'O', slug: 'origin-shop' });
    const bad = await admin('POST', '/merchants/origin-shop/keys', {
      mode: 'live',
      allowed_origins: ['shop.example/path'],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_origins', details: [{ path: '/allowed_origins/0' }] });
    const star = await admin('POST', '/merchants/origin-shop/keys', { mode: 'live', allowed_origins: ['*'] });
    expect(star.statusCode).toBe(400);
    const testStar = await admin('POST', '/merchants/origin-shop/keys', { mode: 'test', allowed_origins: ['*'] });
    expect(testStar.statusCode).toBe(201);
    const mode = await admin('POST', '/merchants/origin-shop/keys', { mode: 'prod' });
    expect(mode.statusCode).toBe(400);
  });

  it('revokes a key (idempotently) and the widget refuses it at once', async () => {
    await admin('POST', '/merchants', { name: 'R', slug: 'revoke-shop' });
    const k = (await admin('POST', '/merchants/revoke-shop/keys', { mode: 'test' })).json();
    expect((await verify(app, { api_key: k.key })).statusCode).toBe(200);
    const first = await admin('POST', `/keys/${k.id}/revoke`);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ id: k.id, revoked: true });
    const again = await admin('POST', `/keys/${k.id}/revoke`);
    expect(again.json().revoked_at).toBe(first.json().revoked_at);
    expect((await verify(app, { api_key: k.key })).statusCode).toBe(403);
  });

  it('replaces allowed origins with immediate effect', async () => {
    await admin('POST', '/merchants', { name: 'P', slug: 'patch-shop' });
    const k = (
      await admin('POST', '/merchants/patch-shop/keys', { mode: 'live', allowed_origins: ['https://a.example'] })
    ).json();
    expect((await verify(app, { api_key: k.key }, { origin: 'https://a.example' })).statusCode).toBe(200);
    const res = await admin('PATCH', `/keys/${k.id}`, { allowed_origins: ['https://b.example'] });
    expect(res.statusCode).toBe(200);
    expect((await verify(app, { api_key: k.key }, { origin: 'https://a.example' })).statusCode).toBe(403);
    expect((await verify(app, { api_key: k.key }, { origin: 'https://b.example' })).statusCode).toBe(200);
  });

  it('404 key_not_found for unknown or malformed key ids', async () => {
    for (const id of ['00000000-0000-0000-0000-000000000000', 'not-a-uuid']) {
      const res = await admin('POST', `/keys/${id}/revoke`);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('key_not_found');
    }
  });
});
