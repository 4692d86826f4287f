import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, closeTestApp, type TestApp } from './helper.ts';

/**
 * A storefront developer's client, generated from the published document as
 * the docs recommend (openapi-typescript for the types, openapi-fetch to call):
 * a whole storefront flow type-checks under --strict without a cast, and each
 * wrong call below fails to compile (an unused @ts-expect-error is itself an
 * error, so a wrong call the types let through fails this test).
 */
const DIR = join(fileURLToPath(new URL('..', import.meta.url)), 'reports', 'generated-client');

const FLOW = `
import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

type Recommendation = components['schemas']['Recommendation'];
type Product = components['schemas']['MerchantProductInput'];
type Quiz = components['schemas']['Quiz'];
type ScoreBody = paths['/api/widget/score']['post']['requestBody']['content']['application/json'];

const client = createClient<paths>({ baseUrl: 'https://sillage.example' });
const api_key = 'pk_test_x';

export async function storefront(): Promise<Recommendation[]> {
  const verified = await client.POST('/api/widget/verify', { body: { api_key } });
  if (verified.error) throw new Error(verified.error.code);
  const ready: boolean = verified.data.catalog.ready;
  const products: Product[] = [{ merchant_product_id: 'p1', name: 'Khamrah EDP 100ml', house: 'Lattafa', price: 120 }];
  const scored = await client.POST('/api/widget/score', {
    body: {
      api_key,
      quiz: { families: ['oud'], accord_ratings: { oud: 'love' }, season: 'winter', occasion: 'evening' },
      catalog_mode: ready ? 'synced' : 'inline',
      inline_catalog: ready ? undefined : products,
      limit: 6,
      locale: 'ar',
    },
  });
  if (scored.error) {
    // the codes an error can carry are an enum: a code the document does not list does not compile
    // @ts-expect-error not a code of this operation
    const never: typeof scored.error.code = 'not_a_code';
    throw new Error(scored.error.code + never);
  }
  const { session_id, recommendations } = scored.data;
  const first = recommendations[0];
  if (first) {
    const score: number = first.match_score;
    const quality: 'full' | 'unreviewed' | 'sibling' | 'shops' | 'described' | 'partial' | 'inspired' | 'guessed' = first.quality;
    const original: string | undefined = first.inspired_by?.name;
    const shops: number | undefined = first.described_by_shops;
    await client.POST('/api/widget/event', {
      body: { api_key, type: 'recommendation_clicked', session_id, merchant_product_id: first.merchant_product_id, position: 1 },
    });
    void score;
    void shops;
    void quality;
    void original;
  }
  await client.POST('/api/widget/event', {
    body: {
      api_key,
      session_id,
      events: [
        { type: 'results_viewed', data: { count: recommendations.length } },
        { type: 'purchase_completed', order_id: 'o1', total: 120, currency: 'SAR', items: [{ merchant_product_id: 'p1', quantity: 1, price: 120 }] },
      ],
    },
  });
  const found = await client.POST('/api/widget/lookup', { body: { api_key, query: 'khamrah', limit: 5 } });
  if (found.data) void found.data.results.map((p) => p.house);
  return recommendations;
}

export async function wrongCalls() {
  const quiz = { families: ['oud'] };
  // An object literal written inside the call is typed by inference (openapi-fetch), so TypeScript
  // does not flag a field too many there; written as the generated type, it does (and the server
  // answers 400 unknown_field either way).
  // @ts-expect-error a misspelt field: limt is not limit
  await client.POST('/api/widget/score', { body: { api_key, quiz, limt: 2 } satisfies ScoreBody });
  // @ts-expect-error a misspelt quiz field: familes
  const misspelt: Quiz = { familes: ['oud'] };
  // @ts-expect-error limit is a number, not text
  await client.POST('/api/widget/score', { body: { api_key, quiz, limit: '6' } });
  // @ts-expect-error catalog_mode is synced or inline
  await client.POST('/api/widget/score', { body: { api_key, quiz, catalog_mode: 'inlined' } });
  // @ts-expect-error locale is ar or en
  await client.POST('/api/widget/score', { body: { api_key, quiz, locale: 'fr' } });
  // @ts-expect-error an inline product needs its name (its house may be left out)
  await client.POST('/api/widget/score', { body: { api_key, quiz, catalog_mode: 'inline', inline_catalog: [{ merchant_product_id: 'p', house: 'Lattafa' }] } });
  // @ts-expect-error a price is a number
  await client.POST('/api/widget/score', { body: { api_key, quiz, catalog_mode: 'inline', inline_catalog: [{ merchant_product_id: 'p', name: 'Khamrah', house: 'Lattafa', price: '120' }] } });
  // @ts-expect-error an event type that does not exist
  await client.POST('/api/widget/event', { body: { api_key, type: 'purchase_complete', order_id: 'o' } });
  // @ts-expect-error a purchase without its total, currency and items
  await client.POST('/api/widget/event', { body: { api_key, type: 'purchase_completed', order_id: 'o' } });
  // @ts-expect-error a lead without consent
  await client.POST('/api/widget/event', { body: { api_key, type: 'lead_submitted', email: 'a@b.co', consent: false, consent_version: 'v1' } });
  // @ts-expect-error lookup ids are a list
  await client.POST('/api/widget/lookup', { body: { api_key, ids: 'lattafa-khamrah-edp' } });
  return misspelt;
}
`;

let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(() => closeTestApp(app));

describe('a client generated from the published document', () => {
  it('type-checks a storefront flow with no cast, and refuses twelve wrong calls and unknown error codes', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    const types = astToString(await openapiTS(doc));
    mkdirSync(DIR, { recursive: true });
    writeFileSync(join(DIR, 'schema.d.ts'), types);
    writeFileSync(join(DIR, 'flow.ts'), FLOW);
    expect(types).toContain('scoreQuiz');
    expect(FLOW.match(/@ts-expect-error/g)).toHaveLength(12);

    const program = ts.createProgram([join(DIR, 'flow.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      skipLibCheck: true,
      types: [],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
      return `flow.ts:${at}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]}`;
    });
    expect(problems).toEqual([]);
  }, 60_000);
});
