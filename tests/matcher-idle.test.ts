import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

// The matcher worker holds its own copy of the catalog: it runs while there is matching to do and
// stops once idle (plugins/app/inline-matcher.ts MATCHER_IDLE_MS), starting again with the next match.
let app: TestApp;
let key: string;
const IDLE_MS = 150;
beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined }, undefined, { matcherIdleMs: IDLE_MS });
  key = (await createMerchantWithKey(app, { slug: 'idle-shop' })).key;
});
afterAll(() => closeTestApp(app));

const inlineScore = () =>
  app.inject({
    method: 'POST',
    url: '/api/widget/score',
    payload: {
      api_key: key,
      quiz: { families: ['oud', 'amber'] },
      catalog_mode: 'inline',
      inline_catalog: [
        { merchant_product_id: 'k', name: 'Khamrah 100ml', house: 'Lattafa', price: 145 },
        { merchant_product_id: 'o', name: 'Oud Wood EDP', house: 'Tom Ford', price: 1290 },
      ],
    },
  });

const ids = (body: { recommendations: { merchant_product_id: string; sillage_perfume_id: string }[] }) =>
  body.recommendations.map((r) => [r.merchant_product_id, r.sillage_perfume_id]).sort();

async function until(what: () => boolean, ms: number) {
  const end = Date.now() + ms;
  while (!what() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  return what();
}

describe('the matcher worker', () => {
  it('is not started before anything is matched', () => {
    expect(app.inlineMatcher.running()).toBe(false);
  });

  it('starts with an inline score, stops once idle, and starts again with the next one, answering the same', async () => {
    const first = await inlineScore();
    expect(first.statusCode).toBe(200);
    expect(ids(first.json())).toHaveLength(2);
    expect(app.inlineMatcher.running()).toBe(true);
    expect(await until(() => !app.inlineMatcher.running(), 5000)).toBe(true);
    const again = await inlineScore();
    expect(again.statusCode).toBe(200);
    expect(ids(again.json())).toEqual(ids(first.json()));
    expect(app.inlineMatcher.running()).toBe(true);
  });

  it('keeps running while matches keep coming closer together than its idle time', async () => {
    for (let i = 0; i < 4; i++) {
      expect((await inlineScore()).statusCode).toBe(200);
      expect(app.inlineMatcher.running()).toBe(true);
      await new Promise((r) => setTimeout(r, IDLE_MS / 3));
    }
  });
});
