import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { ANY_OPERATION, errorResponses } from '../../contracts/errors.ts';
import { AppError } from '../../lib/errors.ts';
import type { Html } from '../../lib/html.ts';
import { fromRoot } from '../../lib/root.ts';
import { type DemoInfo, findDemoProduct, listDemoProducts } from '../../services/demo.ts';
import { type DemoOrder, type Lang, notFoundPage, productPage, shopPage, thankYouPage } from './pages.ts';

/**
 * The policy a careful shop runs under: nothing inline, scripts and styles
 * from the page's own origin only. The demo pages load the widget exactly as
 * a merchant would, so they show it working under such a policy.
 */
export const DEMO_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'";

export const DEMO_DISABLED_MESSAGE =
  'The demo storefront is off: it is seeded at start-up when SEED_DEMO=true (the default with the embedded database); set SEED_DEMO=true and restart';

const ASSETS_DIR = fromRoot('routes', 'demo', 'assets');
// read once: two small files that change only with a deploy
const ASSETS = {
  css: readFileSync(join(ASSETS_DIR, 'demo.css'), 'utf8'),
  thankYou: readFileSync(join(ASSETS_DIR, 'thank-you.js'), 'utf8'),
};

const LangQuery = Type.Object({
  // an enum rather than a union of literals: a bad value then gets "must be one of: ar, en"
  lang: Type.Optional(
    Type.Unsafe<Lang>({
      type: 'string',
      enum: ['ar', 'en'],
      default: 'ar',
      description: 'Page language: ar (default, right to left) or en',
    }),
  ),
});

const ProductParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200, description: 'merchant_product_id, URL-encoded' }),
});

const ThankYouQuery = Type.Object({
  product: Type.String({ minLength: 1, maxLength: 200, description: 'merchant_product_id of the demo order' }),
  lang: LangQuery.properties.lang,
});

const htmlPage = (description: string) => ({
  description,
  content: { 'text/html': { schema: Type.String() } },
});
const asset = (type: string) => ({ content: { [type]: { schema: Type.String() } } });

function sendPage(reply: FastifyReply, status: number, page: Html) {
  return reply
    .code(status)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': DEMO_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'strict-origin-when-cross-origin',
      // prices, the key and every thank-you page's order id are per start or per request
      'cache-control': 'no-store',
    })
    .send(page.value);
}

function sendAsset(reply: FastifyReply, type: string, body: string) {
  return reply
    .headers({ 'content-type': type, 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' })
    .send(body);
}

/**
 * The demo storefront: a small shop of the demo merchant's products with the
 * widget on every page, so a newcomer sees the whole product in a browser.
 * Browser pages, left out of the API reference (hide). An unknown product is
 * a small HTML 404 page, since a person following a link reads it; anything
 * else (a bad query, the demo being off) keeps the JSON error shape.
 */
const demo: FastifyPluginAsyncTypebox = async (app) => {
  // the demo is seeded in onReady, after these routes are registered: decide per request
  const demoInfo = (): DemoInfo => {
    const info = app.demo.info();
    if (!info) throw new AppError(404, 'demo_disabled', DEMO_DISABLED_MESSAGE);
    return info;
  };
  app.addHook('onRequest', async () => {
    demoInfo();
  });

  app.get(
    '/',
    {
      schema: {
        hide: true,
        summary: 'Demo storefront: the shop page',
        querystring: LangQuery,
        response: { 200: htmlPage('The shop page'), ...errorResponses(ANY_OPERATION) },
      },
    },
    async (request, reply) => {
      const info = demoInfo();
      const lang: Lang = request.query.lang ?? 'ar';
      const snapshot = app.catalog.current();
      const rows = await listDemoProducts(app.db, info.merchant.id);
      const products = rows.map((r) => ({
        id: r.merchantProductId,
        name: r.name,
        house: r.house,
        price: r.price,
        currency: r.currency,
        // the merchant's own image wins; the matched perfume's is the fallback (as in the API)
        imageUrl: r.imageUrl ?? (r.sillagePerfumeId ? (snapshot.byId.get(r.sillagePerfumeId)?.imageUrl ?? null) : null),
      }));
      return sendPage(reply, 200, shopPage(lang, info.key, products));
    },
  );

  app.get(
    '/products/:id',
    {
      schema: {
        hide: true,
        summary: 'Demo storefront: a product page, with what the catalog knows of the perfume',
        params: ProductParams,
        querystring: LangQuery,
        response: { 200: htmlPage('The product page'), ...errorResponses(ANY_OPERATION) },
      },
    },
    async (request, reply) => {
      const info = demoInfo();
      const lang: Lang = request.query.lang ?? 'ar';
      const row = await findDemoProduct(app.db, info.merchant.id, request.params.id);
      if (!row) return sendPage(reply, 404, notFoundPage(lang, info.key));
      const perfume = row.sillagePerfumeId ? app.catalog.current().byId.get(row.sillagePerfumeId) : undefined;
      return sendPage(reply, 200, productPage(lang, info.key, row, perfume));
    },
  );

  app.get(
    '/thank-you',
    {
      schema: {
        hide: true,
        summary: 'Demo storefront: order confirmation of 1 × a product, reported to the widget as a purchase',
        querystring: ThankYouQuery,
        response: { 200: htmlPage('The order confirmation page'), ...errorResponses(ANY_OPERATION) },
      },
    },
    async (request, reply) => {
      const info = demoInfo();
      const lang: Lang = request.query.lang ?? 'ar';
      const row = await findDemoProduct(app.db, info.merchant.id, request.query.product);
      if (!row) return sendPage(reply, 404, notFoundPage(lang, info.key));
      const price = row.price ?? 0;
      // a new order on every load, as a shop's confirmation page would have after each checkout
      const order: DemoOrder = {
        orderId: `demo-${randomBytes(8).toString('hex')}`,
        total: price,
        currency: row.currency,
        items: [{ merchant_product_id: row.merchantProductId, quantity: 1, price }],
      };
      return sendPage(reply, 200, thankYouPage(lang, info.key, row, order));
    },
  );

  app.get(
    '/assets/demo.css',
    { schema: { hide: true, response: { 200: asset('text/css'), ...errorResponses(ANY_OPERATION) } } },
    async (_request, reply) => sendAsset(reply, 'text/css; charset=utf-8', ASSETS.css),
  );

  app.get(
    '/assets/thank-you.js',
    { schema: { hide: true, response: { 200: asset('text/javascript'), ...errorResponses(ANY_OPERATION) } } },
    async (_request, reply) => sendAsset(reply, 'text/javascript; charset=utf-8', ASSETS.thankYou),
  );

  // any other path under /demo: says the demo is off (the onRequest hook) or is the usual JSON 404
  app.all('/*', { schema: { hide: true } }, async (request) => {
    throw new AppError(
      404,
      'not_found',
      `Route ${request.method} ${(request.url.split('?')[0] ?? '').slice(0, 200)} not found`,
    );
  });
};

export default demo;
