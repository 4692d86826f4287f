import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, closeTestApp, type TestApp } from '../helper.ts';
import { connectFromWoo, type WooSimProduct, WooSimulator } from '../woo-sim.ts';

/**
 * The WooCommerce connection attacked (issue 44): what a store proves, not its address or an email
 * anyone can type, decides whose merchant and whose console it opens. Stores are tests/woo-sim.ts.
 */
let sim: WooSimulator;
let app: TestApp;
const logs: string[] = [];
const SHELF: WooSimProduct[] = [{ id: 101, name: 'Sauvage Eau de Toilette 100ml', brand: 'Dior', price: 520 }];

beforeAll(async () => {
  sim = await new WooSimulator().start();
  app = await buildTestApp({ ...sim.env(), REDIS_URL: undefined, LOG_LEVEL: 'info' }, undefined, {
    logStream: { write: (line: string) => void logs.push(line) },
  });
});
afterAll(async () => {
  await closeTestApp(app);
  await sim.stop();
});

describe('13. the connect token in the log', () => {
  it("WooCommerce's return carries the token as user_id: the request log keeps no trace of it", async () => {
    sim.addStore('logged', SHELF);
    const c = await connectFromWoo(app, sim, 'logged');
    expect(c.token.length).toBeGreaterThan(40);
    const lines = logs.join('\n');
    expect(lines).toContain('/console/woocommerce/return');
    expect(lines).not.toContain(c.token);
    expect(lines).not.toContain(encodeURIComponent(c.token));
    expect(lines).not.toContain(c.token.split('.')[1] as string);
  });
});
