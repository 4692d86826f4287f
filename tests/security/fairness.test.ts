import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heavyRows, wordMaker } from '../../bench/heavy-rows.ts';
import { INLINE_PER_MERCHANT, INLINE_QUEUE } from '../../plugins/app/inline-matcher.ts';
import { syncProducts } from '../../services/products.ts';
import { buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from '../helper.ts';

/**
 * Inline catalogs are matched on the fly on the event loop every shop shares:
 * one at a time, in slices, a few per merchant. A merchant sending the
 * heaviest inline requests it can build takes its share, not the server.
 */
let app: TestApp;
let honestKey: string;
beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined, ADDRESS_RATE_LIMIT: '0' });
  const honest = await createMerchantWithKey(app, { origins: ['https://shop.example'] });
  honestKey = honest.key;
  await syncProducts(
    app.db,
    app.catalog.current(),
    honest.merchant.id,
    [
      { merchant_product_id: 'k1', name: 'Khamrah', house: 'Lattafa', price: 120 },
      { merchant_product_id: 's1', name: 'Sauvage Eau de Parfum', house: 'Dior', price: 500 },
    ],
    {},
  );
});
afterAll(() => closeTestApp(app));

let address = 0;
const score = (key: string, body: object = {}) =>
  app.inject({
    method: 'POST',
    url: '/api/widget/score',
    headers: { origin: 'https://shop.example' },
    // each from its own address: the per-key-and-address quota is not what is tested here
    remoteAddress: `10.9.${(++address >> 8) & 255}.${address & 255}`,
    payload: { api_key: key, quiz: { families: ['oud'] }, ...body },
  });

const word = wordMaker(7);
const heavyInline = () => ({ catalog_mode: 'inline', inline_catalog: heavyRows(word) });

describe('inline catalogs share the event loop fairly', () => {
  it("another shop's synced score sent while a 200-row inline catalog is being matched is answered before that match ends", async () => {
    const attacker = await createMerchantWithKey(app, { origins: ['https://shop.example'] });
    const order: string[] = [];
    const inline = score(attacker.key, heavyInline()).then((r) => {
      order.push(`inline ${r.statusCode}`);
    });
    await new Promise((r) => setImmediate(r));
    const honest = score(honestKey).then((r) => {
      order.push(`synced ${r.statusCode}`);
    });
    await Promise.all([inline, honest]);
    expect(order).toEqual(['synced 200', 'inline 200']);
  });

  it(`a merchant has at most ${INLINE_PER_MERCHANT} inline catalogs matched or waiting at once: past that 429 with Retry-After, while another merchant's is served`, async () => {
    const attacker = await createMerchantWithKey(app, { origins: ['https://shop.example'] });
    const other = await createMerchantWithKey(app, { origins: ['https://shop.example'] });
    const answers = await Promise.all([
      ...Array.from({ length: INLINE_PER_MERCHANT + 2 }, () => score(attacker.key, heavyInline())),
      score(other.key, heavyInline()),
    ]);
    const mine = answers.slice(0, -1);
    expect(mine.filter((a) => a.statusCode === 200)).toHaveLength(INLINE_PER_MERCHANT);
    const refused = mine.filter((a) => a.statusCode === 429);
    expect(refused).toHaveLength(2);
    for (const r of refused) {
      expect(r.json()).toMatchObject({ code: 'rate_limited' });
      expect(r.headers['retry-after']).toBe('1');
    }
    expect(answers.at(-1)?.statusCode).toBe(200);
    // the places are free again once the work is done
    expect((await score(attacker.key, heavyInline())).statusCode).toBe(200);
  });

  it(`at most ${INLINE_QUEUE} inline catalogs wait behind the one being matched: past that 503 overloaded with Retry-After, and synced scores are served all the while`, async () => {
    const merchants = await Promise.all(
      Array.from({ length: Math.ceil((INLINE_QUEUE + 4) / INLINE_PER_MERCHANT) }, () =>
        createMerchantWithKey(app, { origins: ['https://shop.example'] }),
      ),
    );
    const inline = merchants.flatMap((m) =>
      Array.from({ length: INLINE_PER_MERCHANT }, () => score(m.key, heavyInline())),
    );
    const synced = await score(honestKey);
    expect(synced.statusCode).toBe(200);
    const answers = await Promise.all(inline);
    const served = answers.filter((a) => a.statusCode === 200).length;
    const overloaded = answers.filter((a) => a.statusCode === 503);
    expect(served).toBe(INLINE_QUEUE + 1);
    expect(overloaded).toHaveLength(answers.length - served);
    for (const r of overloaded) {
      expect(r.json()).toMatchObject({ code: 'overloaded' });
      expect(r.headers['retry-after']).toBe('1');
    }
  }, 60_000);
});
