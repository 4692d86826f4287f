import { readFileSync } from 'node:fs';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS, errorTable } from '../contracts/errors.ts';
import {
  INLINE_MAX_PRODUCTS,
  LOOKUP_MAX_LIMIT,
  PUBLISHED_LISTING_RULES,
  SCORE_MAX_LIMIT,
} from '../contracts/widget.ts';
import { MAX_REQUEST_BYTES } from '../events/validate.ts';
import { DEFAULT_CURRENCY, MAX_DESCRIPTION_LENGTH, validateProductInput } from '../matching/listing.ts';
import { MAX_INLINE_DESCRIPTION_CHARS } from '../plugins/app/score-answers.ts';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(() => closeTestApp(app));

describe('OpenAPI and health', () => {
  it('publishes every route with its request and response schemas, errors included', async () => {
    const res = await app.inject({ method: 'GET', url: '/docs/json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    const verify = doc.paths['/api/widget/verify'].post;
    expect(verify.requestBody.content['application/json'].schema.properties.api_key).toBeDefined();
    expect(Object.keys(verify.responses)).toEqual(['200', '400', '401', '403', '413', '415', '429', '500', '503']);
    const score = doc.paths['/api/widget/score'].post;
    expect(score.responses['200'].content['application/json'].schema.properties.recommendations).toMatchObject({
      type: 'array',
      items: { $ref: '#/components/schemas/Recommendation' },
    });
    expect(score.responses['200'].content['application/json'].schema.properties.also_explore).toMatchObject({
      type: 'array',
      items: { $ref: '#/components/schemas/AlsoExplore' },
    });
    for (const path of ['/healthz', '/readyz']) expect(doc.paths[path], path).toBeDefined();
  });

  it('names every operation and every shared schema, as a generated client calls them', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/api/admin/openapi.json', headers: adminHeaders })).json();
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, { operationId?: string }>).map(([m, op]) => ({
        at: `${m} ${path}`,
        id: op.operationId,
      })),
    );
    expect(operations.filter((o) => !o.id)).toEqual([]);
    expect(new Set(operations.map((o) => o.id)).size).toBe(operations.length);
    const widget = Object.fromEntries(operations.filter((o) => o.at.includes('/api/widget/')).map((o) => [o.at, o.id]));
    expect(widget).toEqual({
      'post /api/widget/verify': 'verifyKey',
      'post /api/widget/lookup': 'lookupPerfumes',
      'post /api/widget/score': 'scoreQuiz',
      'post /api/widget/event': 'recordEvents',
    });
    expect(Object.keys(doc.components.schemas).sort()).toEqual(
      expect.arrayContaining([
        'CatalogReadiness',
        'Merchant',
        'MerchantProductInput',
        'Perfume',
        'Quiz',
        'Recommendation',
        'AlsoExplore',
        'WidgetKey',
      ]),
    );
    expect(Object.keys(doc.components.schemas).filter((n) => /^def-\d+$/.test(n))).toEqual([]);
    expect(JSON.stringify(doc)).not.toContain('Default Response');
  });

  it('lists the statuses an operation answers, each with the codes it can carry and the headers it sends', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    const score = doc.paths['/api/widget/score'].post.responses;
    const codes = (status: string) => score[status].content['application/json'].schema.properties.code.enum;
    expect(codes('401')).toEqual(['invalid_api_key', 'missing_api_key']);
    expect(codes('403')).toEqual(['origin_not_allowed', 'revoked_api_key']);
    expect(codes('503')).toEqual(['database_unavailable', 'overloaded', 'shutting_down']);
    expect(codes('400')).toEqual(expect.arrayContaining(['unknown_field', 'invalid_quiz', 'validation_failed']));
    expect(codes('400')).not.toContain('invalid_event');
    expect(score['429'].headers['retry-after'].required).toBe(true);
    expect(score['429'].headers['x-request-id'].required).toBe(true);
    expect(score['200'].headers['x-ratelimit-remaining'].required).toBeUndefined();
    expect(score['200'].headers['x-request-id'].schema).toEqual({ type: 'string' });
  });

  it('publishes the admin API to operators only: not in /docs, whole at /api/admin/openapi.json behind the token', async () => {
    const pub = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    expect(Object.keys(pub.paths).filter((p) => p.startsWith('/api/admin'))).toEqual([]);
    expect(pub.components.securitySchemes.adminToken).toBeUndefined();
    expect(pub.tags.map((t: { name: string }) => t.name)).not.toContain('admin');
    expect((await app.inject({ method: 'GET', url: '/api/admin/openapi.json' })).statusCode).toBe(401);
    const res = await app.inject({ method: 'GET', url: '/api/admin/openapi.json', headers: adminHeaders });
    expect(res.statusCode).toBe(200);
    const whole = res.json();
    for (const path of [
      '/api/admin/merchants',
      '/api/admin/merchants/{id}/keys',
      '/api/admin/keys/{id}/revoke',
      '/api/widget/score',
      '/healthz',
    ]) {
      expect(whole.paths[path], path).toBeDefined();
    }
    expect(whole.paths['/api/admin/openapi.json']).toBeUndefined();
  });

  it('serves the docs page', async () => {
    const res = await app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });

  it('/healthz and /readyz answer ok when the database is there', async () => {
    expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ok', database: 'ok' });
  });

  it('docs/widget-api.md lists the error codes the document is built from, word for word (npm run docs:errors)', () => {
    const doc = readFileSync(new URL('../docs/widget-api.md', import.meta.url), 'utf8');
    const table = doc
      .slice(doc.indexOf('<!-- error-codes:start -->') + 26, doc.indexOf('<!-- error-codes:end -->'))
      .trim();
    expect(table).toBe(errorTable());
    expect(table).toContain('| 400 | `unknown_field` |');
    expect(table.split('\n').length).toBe(Object.keys(ERRORS).length + 2);
  });

  it("passes Redocly's recommended rules with no error and no warning, the public document and the whole", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    for (const [name, res] of [
      ['public.json', await app.inject({ method: 'GET', url: '/docs/json' })],
      ['whole.json', await app.inject({ method: 'GET', url: '/api/admin/openapi.json', headers: adminHeaders })],
    ] as const) {
      const problems = await lintFromString({ source: res.body, absoluteRef: `/${name}`, config });
      expect(
        problems.map((p) => `${name} ${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
      ).toEqual([]);
    }
  });

  it('its examples are requests the server takes: every quiz example, and an inline product as MerchantProductInput describes it', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    const quiz = doc.components.schemas.Quiz.properties;
    const { key } = await createMerchantWithKey(app);
    const inline_catalog = [
      { merchant_product_id: 7, name: 'Khamrah EDP 100ml', house: 'Lattafa', price: 120, currency: 'SAR' },
    ];
    const asked = [
      ...quiz.families.examples.map((families: string[]) => ({ families })),
      ...quiz.accord_ratings.examples.map((accord_ratings: object) => ({ accord_ratings })),
      ...quiz.season.examples.map((season: string) => ({ families: ['oud'], season })),
      ...quiz.occasion.examples.map((occasion: string) => ({ families: ['oud'], occasion })),
      // the perfumes named are in the catalog
      ...quiz.loved_perfumes.examples.map((loved_perfumes: string[]) => ({ loved_perfumes })),
      ...quiz.disliked_perfumes.examples.map((disliked_perfumes: string[]) => ({
        families: ['oud'],
        disliked_perfumes,
      })),
      ...quiz.for_less_than.examples.map((for_less_than: number) => ({
        loved_perfumes: ['lattafa-khamrah-edp'],
        for_less_than,
      })),
    ];
    expect(asked.length).toBeGreaterThanOrEqual(11);
    for (const q of asked) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/widget/score',
        headers: { origin: 'https://shop.example' },
        payload: { api_key: key, quiz: q, catalog_mode: 'inline', inline_catalog },
      });
      expect(res.statusCode, JSON.stringify(q) + res.body).toBe(200);
    }
  });

  it('shows a request and an answer for each widget operation: the request is taken, the answer has the shape', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    const { key } = await createMerchantWithKey(app, { mode: 'test' });
    let session: string | undefined;
    for (const op of ['verify', 'lookup', 'score', 'event']) {
      const operation = doc.paths[`/api/widget/${op}`].post;
      const request = operation.requestBody.content['application/json'].example;
      const status = op === 'event' ? '202' : '200';
      const example = operation.responses[status].content['application/json'].example;
      expect(request.api_key, op).toMatch(/^pk_test_/);
      expect(example, op).toBeDefined();
      const res = await app.inject({
        method: 'POST',
        url: `/api/widget/${op}`,
        headers: { origin: 'https://shop.example' },
        payload: { ...request, api_key: key, ...(op === 'event' ? { session_id: session } : {}) },
      });
      expect(res.statusCode, `${op}: ${res.body}`).toBe(Number(status));
      if (op === 'score') session = res.json().session_id;
      // the example answer has the keys a real one has
      expect(Object.keys(example).sort(), op).toEqual(Object.keys(res.json()).sort());
    }
  });

  it('publishes the listing rules the server applies: the longest description, the default currency', () => {
    expect(PUBLISHED_LISTING_RULES).toEqual({
      maxDescriptionLength: MAX_DESCRIPTION_LENGTH,
      defaultCurrency: DEFAULT_CURRENCY,
    });
    const row = { merchant_product_id: 'p', name: 'Khamrah', house: 'Lattafa' };
    expect(validateProductInput({ ...row, description: 'x'.repeat(MAX_DESCRIPTION_LENGTH) }).ok).toBe(true);
    expect(validateProductInput({ ...row, description: 'x'.repeat(MAX_DESCRIPTION_LENGTH + 1) }).ok).toBe(false);
  });

  it('is valid against the OpenAPI 3.1 schema, the public document and the whole', async () => {
    for (const res of [
      await app.inject({ method: 'GET', url: '/docs/json' }),
      await app.inject({ method: 'GET', url: '/api/admin/openapi.json', headers: adminHeaders }),
    ]) {
      const result = await new Validator().validate(res.json());
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
    }
  });

  it('docs/widget-api.md states the limits the document and the server hold', async () => {
    const text = readFileSync(new URL('../docs/widget-api.md', import.meta.url), 'utf8');
    const en = (n: number) => n.toLocaleString('en');
    expect(text).toContain(`| \`limit\` | integer 1–${LOOKUP_MAX_LIMIT} |`);
    expect(text).toContain(`\`limit\` 1–${SCORE_MAX_LIMIT} (default 6)`);
    expect(text).toContain(`requires \`inline_catalog\` (1–${INLINE_MAX_PRODUCTS} rows)`);
    expect(text).toContain(`at most ${en(PUBLISHED_LISTING_RULES.maxDescriptionLength)} characters`);
    expect(text).toContain(`at most ${en(MAX_INLINE_DESCRIPTION_CHARS)} together`);
    expect(text).toContain(`event ${MAX_REQUEST_BYTES / 1024} KB`);
    const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    const score = doc.paths['/api/widget/score'].post.requestBody.content['application/json'].schema.properties;
    expect([score.limit.maximum, score.inline_catalog.maxItems]).toEqual([SCORE_MAX_LIMIT, INLINE_MAX_PRODUCTS]);
    const lookup = doc.paths['/api/widget/lookup'].post.requestBody.content['application/json'].schema.properties;
    expect(lookup.limit.maximum).toBe(LOOKUP_MAX_LIMIT);
  });
});
