import { createHash, randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWoo, wooStoreId } from '../platforms/woocommerce.ts';
import { consoleUsers, platformInstalls, platformWebhooks } from '../schema/index.ts';
import { buildTestApp, closeTestApp, type TestApp } from './helper.ts';
import { connectFromWoo, type WooSimProduct, WooSimulator } from './woo-sim.ts';
import { cookieOf } from './zid-sim.ts';

let sim: WooSimulator;
let app: TestApp;
const SHELF: WooSimProduct[] = [{ id: 101, name: 'Sauvage Eau de Toilette 100ml', brand: 'Dior', price: 520 }];
const installOf = async (store: string) =>
  (await app.db.select().from(platformInstalls).where(eq(platformInstalls.storeId, store)))[0];

beforeAll(async () => {
  sim = await new WooSimulator().start();
  app = await buildTestApp(sim.env());
});
afterAll(async () => {
  await closeTestApp(app);
  await sim.stop();
});

/** attacker: starts a connect for any store address, never visits the store */
async function attackerStart(store: string, email: string) {
  const secret = randomBytes(32).toString('hex');
  const proof = createHash('sha256').update(secret).digest('hex');
  const start = await app.inject({
    method: 'GET',
    url: `/console/woocommerce/connect?${new URLSearchParams({ store, proof, email })}`,
  });
  const cookie = cookieOf(start.headers['set-cookie'], 'woocommerce_connect') as string;
  const token = new URL(start.headers.location as string).searchParams.get('user_id') as string;
  return { secret, cookie, token };
}

describe('A1: connect for a store already installed by someone else', () => {
  it('signs the attacker in to the victim console and hands over the webhook secret', async () => {
    sim.addStore('victim', SHELF);
    const v = await connectFromWoo(app, sim, 'victim', { email: 'owner@victim.example' });
    expect(v.claim.statusCode).toBe(200);
    const id = wooStoreId(sim.url('victim'));

    const a = await attackerStart(sim.url('victim'), 'mallory@evil.example');
    const ret = await app.inject({
      method: 'GET',
      url: `/console/woocommerce/return?success=1&user_id=${encodeURIComponent(a.token)}`,
      headers: { cookie: a.cookie },
    });
    const session = cookieOf(ret.headers['set-cookie'], 'console_session');
    const page = await app.inject({
      method: 'GET',
      url: `/console/m/woocommerce-${id}/install?lang=en`,
      headers: session ? { cookie: session } : {},
    });
    const mallory = (await app.db.select().from(consoleUsers).where(eq(consoleUsers.email, 'mallory@evil.example')))[0];
    console.log('A1 return', ret.statusCode, 'session?', !!session, 'console', page.statusCode, 'mallory', mallory?.role, mallory?.merchantId === (await installOf(id))?.merchantId);

    const claim = await app.inject({
      method: 'POST',
      url: '/api/platforms/woocommerce/connections/claim',
      payload: { token: a.token, secret: a.secret },
    });
    console.log('A1 claim', claim.statusCode, claim.body.slice(0, 200));
    // with the stolen secret: a forged disconnection
    if (claim.statusCode === 200) {
      const secret = claim.json().webhook_secret as string;
      const payload = JSON.stringify({ store_id: id });
      const r = await app.inject({
        method: 'POST',
        url: `/api/platforms/woocommerce/webhooks/${id}`,
        headers: { 'content-type': 'application/json', 'x-wc-webhook-topic': 'sillage.disconnected', 'x-wc-webhook-signature': signWoo(payload, secret) },
        payload,
      });
      await app.jobs.drain();
      console.log('A1 forged disconnect', r.statusCode, (await installOf(id))?.status);
    }
    expect(session).toBeUndefined();
    expect(claim.statusCode).not.toBe(200);
  });
});
