import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PLATFORM_WEBHOOK_MAX_BYTES, platformBodyReads } from '../../routes/platforms/shared.ts';
import { buildTestApp, closeTestApp, type TestApp } from '../helper.ts';
import { SallaSimulator, webhookRequest } from '../salla-sim.ts';

/**
 * Issue 44, finding 1: the platform routes took any number of unauthenticated posts at their body
 * limit. Refused posts nobody vouched for are counted per address: past 60 in a minute, the
 * address is answered 429 before its body is read, until the minute ends.
 */
const SECRET = 'salla-webhook-secret-0123456789';
let sim: SallaSimulator;
let app: TestApp;

beforeAll(async () => {
  sim = await new SallaSimulator().start();
  app = await buildTestApp(sim.env(SECRET));
});
afterAll(async () => {
  await closeTestApp(app);
  await sim.stop();
});
afterEach(() => {
  vi.useRealTimers();
});

const BODY = Buffer.alloc(PLATFORM_WEBHOOK_MAX_BYTES - 2, 0x61);
/**
 * a body at the limit to one of the webhook routes, refused: a signature that is not the body's
 * (Salla's, read first), or a platform this service does not run (refused before it is read)
 */
const junk = (i: number, remoteAddress: string) =>
  app.inject({
    method: 'POST',
    url: [
      '/api/platforms/salla/webhook',
      '/api/platforms/shopify/webhooks',
      '/api/platforms/zid/webhooks/1',
      '/api/platforms/woocommerce/webhooks/x',
    ][i % 4] as string,
    headers: { 'content-type': 'application/json', 'x-salla-signature': '0'.repeat(64) },
    payload: Buffer.concat([Buffer.from('"'), BODY, Buffer.from('"')]),
    remoteAddress,
  });

describe('refused platform posts, per address', () => {
  it('the 61st refused post from one address is answered 429 before its body is read; others are served', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-01T10:00:00Z'));
    const attacker = '203.0.113.7';
    for (let i = 0; i < 60; i++) {
      const res = await junk(i, attacker);
      expect([401, 404], `post ${i + 1}`).toContain(res.statusCode);
    }
    const read = platformBodyReads.bodies;
    const throttled = await junk(60, attacker);
    expect(throttled.statusCode).toBe(429);
    expect(throttled.json()).toMatchObject({ code: 'rate_limited' });
    expect(Number(throttled.headers['retry-after'])).toBe(60);
    // its body was never read
    expect(platformBodyReads.bodies).toBe(read);
    // the store's own signed delivery from that address waits as well, until the minute ends
    sim.addStore(910, []);
    const signed = sim.authorize(910, SECRET);
    expect((await app.inject({ ...webhookRequest(signed), remoteAddress: attacker })).statusCode).toBe(429);

    // another address is served as before: its own refusal, its body read
    const other = await junk(0, '198.51.100.9');
    expect(other.statusCode).toBe(401);
    expect(other.json()).toMatchObject({ code: 'invalid_signature' });
    expect(platformBodyReads.bodies).toBe(read + 1);
    // and a delivery Salla signed, from an address of its own, is stored
    const stored = await app.inject({ ...webhookRequest(signed), remoteAddress: '192.0.2.44' });
    expect(stored.statusCode).toBe(200);
    expect(stored.json()).toEqual({ received: true, duplicate: false });

    // once the minute has ended, the address is heard again
    vi.setSystemTime(new Date('2026-03-01T10:01:00.001Z'));
    expect((await junk(0, attacker)).statusCode).toBe(401);
  });

  it("a platform's signed deliveries are never counted, even those refused after their signature", async () => {
    const platform = '192.0.2.80';
    // Salla signed them, about a store that never installed the app: 404 unknown_store, 70 times
    for (let i = 0; i < 70; i++) {
      const hook = sim.webhook('product.updated', 99_000 + i, { id: i }, SECRET);
      const res = await app.inject({ ...webhookRequest(hook), remoteAddress: platform });
      expect(res.statusCode, `delivery ${i + 1}`).toBe(404);
      expect(res.json()).toMatchObject({ code: 'unknown_store' });
    }
    sim.addStore(911, []);
    const res = await app.inject({ ...webhookRequest(sim.authorize(911, SECRET)), remoteAddress: platform });
    expect(res.statusCode).toBe(200);
  });
});
