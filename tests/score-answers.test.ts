import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKey } from '../auth/keys.ts';
import type { ScoreCall } from '../plugins/app/score-answers.ts';
import type { SessionRecord } from '../plugins/app/sessions.ts';
import type { CompiledProducts } from '../scoring/products.ts';
import { normalizeQuiz } from '../scoring/quiz.ts';
import type { ResolvedKey } from '../services/keys.ts';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

let app: TestApp;
let live: ResolvedKey;
let test: ResolvedKey;
const recorded: SessionRecord[] = [];

const feed = [
  { merchant_product_id: 'oud-1', name: 'Oud Wood 100ml', house: 'Tom Ford', price: 1290 },
  { merchant_product_id: 'sw-1', name: 'Khamrah', house: 'Lattafa', price: 145 },
  { merchant_product_id: 'fresh-1', name: 'Dylan Blue EDT', house: 'Versace', price: 395 },
];

async function resolvedKey(key: string): Promise<ResolvedKey> {
  const parsed = parseKey(key);
  if (!parsed.ok) throw new Error('bad test key');
  const resolved = await app.keyStore.resolve(parsed.hash);
  if (!resolved) throw new Error('unknown test key');
  return resolved;
}

beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
  const m = await createMerchantWithKey(app, { slug: 'answers-shop' });
  await app.inject({
    method: 'PUT',
    url: `/api/admin/merchants/${m.merchant.id}/products`,
    payload: { products: feed },
    headers: adminHeaders,
  });
  live = await resolvedKey(m.key);
  const { createKey } = await import('../services/keys.ts');
  test = await resolvedKey((await createKey(app.db, m.merchant.id, { mode: 'test', allowedOrigins: [] })).key);
  const record = app.sessions.record;
  app.sessions.record = (s) => {
    recorded.push(s);
    record(s);
  };
});
afterAll(() => closeTestApp(app));

function call(over: Partial<ScoreCall> = {}): ScoreCall {
  const q = normalizeQuiz({ families: ['oud'], accord_ratings: { oud: 'love' } });
  if (!q.ok) throw new Error('bad quiz');
  return {
    key: live,
    quiz: q.quiz,
    mode: 'synced',
    limit: 6,
    locale: 'en',
    sessionId: '018f0000-0000-7000-8000-000000000001',
    ...over,
  };
}

async function merchantProducts(): Promise<CompiledProducts> {
  const products = app.scoreAnswers.productsFor(call(), undefined);
  return products instanceof Promise ? await products : products;
}

describe('score answers', () => {
  it("answers from the merchant's compiled products without waiting once they are loaded", async () => {
    await merchantProducts();
    const again = app.scoreAnswers.productsFor(call(), undefined);
    expect(again).not.toBeInstanceOf(Promise);
    expect((again as CompiledProducts).products.map((p) => p.merchantProductId)).toEqual(['fresh-1', 'oud-1', 'sw-1']);
  });

  it('renders a synced answer once, then gives each request the same bytes with its own session id', async () => {
    const products = await merchantProducts();
    let renders = 0;
    const serialize = (body: unknown) => {
      renders++;
      return JSON.stringify(body);
    };
    const first = app.scoreAnswers.answer(
      call({ sessionId: 'aaaaaaaa-0000-7000-8000-000000000001' }),
      products,
      serialize,
    );
    const rendersForFirst = renders;
    const second = app.scoreAnswers.answer(
      call({ sessionId: 'bbbbbbbb-0000-7000-8000-000000000002' }),
      products,
      serialize,
    );
    expect(Buffer.isBuffer(first)).toBe(true);
    expect(Buffer.isBuffer(second)).toBe(true);
    expect(renders).toBe(rendersForFirst);
    const a = JSON.parse(String(first));
    const b = JSON.parse(String(second));
    expect(a.session_id).toBe('aaaaaaaa-0000-7000-8000-000000000001');
    expect(b.session_id).toBe('bbbbbbbb-0000-7000-8000-000000000002');
    expect(b.powered_by.url).toMatch(/session=bbbbbbbb-0000-7000-8000-000000000002$/);
    expect(a.recommendations[0].merchant_product_id).toBe('oud-1');
    expect({ ...b, session_id: a.session_id, powered_by: a.powered_by }).toEqual(a);
  });

  it('keeps the bytes of each locale and key mode apart', async () => {
    const products = await merchantProducts();
    const serialize = (body: unknown) => JSON.stringify(body);
    const ar = JSON.parse(String(app.scoreAnswers.answer(call({ locale: 'ar' }), products, serialize)));
    const en = JSON.parse(String(app.scoreAnswers.answer(call({ locale: 'en' }), products, serialize)));
    const asTest = JSON.parse(String(app.scoreAnswers.answer(call({ key: test }), products, serialize)));
    expect(ar.powered_by.label).toBe('بدعم من Sillage');
    expect(en.powered_by.label).toBe('Powered by Sillage');
    expect([en.test_mode, asTest.test_mode]).toEqual([false, true]);
  });

  it('answers an inline catalog with the body, scored afresh, and records it as inline', async () => {
    recorded.length = 0;
    const c = call({ mode: 'inline', sessionId: 'cccccccc-0000-7000-8000-000000000003' });
    // matched on the inline matcher's worker thread: a promise, whatever the rows
    const pending = app.scoreAnswers.productsFor(c, feed);
    expect(pending).toBeInstanceOf(Promise);
    const products = await pending;
    const answer = app.scoreAnswers.answer(c, products, (b) => JSON.stringify(b));
    expect(Buffer.isBuffer(answer)).toBe(false);
    expect((answer as { session_id: string }).session_id).toBe('cccccccc-0000-7000-8000-000000000003');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      id: 'cccccccc-0000-7000-8000-000000000003',
      test: false,
      locale: 'en',
    });
    expect(JSON.parse(recorded[0]?.answer.quizJson ?? '{}').catalog_mode).toBe('inline');
  });

  it('refuses an inline catalog with a bad or repeated row, naming the row', async () => {
    const c = call({ mode: 'inline' });
    await expect(
      app.scoreAnswers.productsFor(c, [feed[0], { merchant_product_id: 'x', house: 'Dior' }]),
    ).rejects.toEqual(
      expect.objectContaining({
        statusCode: 400,
        code: 'invalid_inline_catalog',
        message: 'Invalid request: inline_catalog 1: name is required (1–300 characters)',
      }),
    );
    await expect(app.scoreAnswers.productsFor(c, [feed[0], feed[0]])).rejects.toEqual(
      expect.objectContaining({
        message: 'Invalid request: inline_catalog 1: merchant_product_id appears twice in the list',
      }),
    );
  });

  it('falls back to the body when a session id cannot be spliced into the bytes', async () => {
    const products = await merchantProducts();
    const answer = app.scoreAnswers.answer(call({ sessionId: 'not"spliceable' }), products, (b) => JSON.stringify(b));
    expect(Buffer.isBuffer(answer)).toBe(false);
    expect((answer as { session_id: string }).session_id).toBe('not"spliceable');
  });
});
