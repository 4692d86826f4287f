import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  eventUrl,
  purchaseEvent,
  SESSION_TTL_MS,
  sessionStorageName,
  shopifyId,
} from '../apps/shopify/extensions/sillage-pixel/src/purchase.js';
import { validateEvents } from '../events/validate.ts';

const KEY = 'pk_live_0123456789abcdefghijklmnopqrstuv';
const SETTINGS = { base: 'https://sillage.example', key: KEY };
const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const SESSION = '3f2b8c1e-9d4a-4b7e-8f10-5a6b7c8d9e0f';
const DAY = 24 * 3600 * 1000;
const stored = (at: number, id = SESSION) => JSON.stringify({ id, at });
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
/** whether the service's own validation (POST /api/widget/event) takes the body */
const accepted = (body: { events: { occurred_at?: string }[] } | null) =>
  body !== null && validateEvents(body, new Date(body.events[0]?.occurred_at ?? NOW)).ok;

const line = (product: unknown, quantity: unknown, amount: unknown) => ({
  id: 'gid://shopify/CheckoutLineItem/1',
  quantity,
  title: 'Oud Royal',
  variant: {
    id: 'gid://shopify/ProductVariant/44',
    price: { amount, currencyCode: 'SAR' },
    product: { id: product, title: 'Oud Royal', vendor: 'Maison', type: 'Eau de parfum' },
  },
});

/** a checkout as Shopify's `checkout_completed` event carries it (event.data.checkout) */
const checkout = (over: Record<string, unknown> = {}) => ({
  currencyCode: 'SAR',
  email: 'shopper@example.com',
  order: { id: 'gid://shopify/Order/5550001234', customer: { id: null, isFirstOrder: true } },
  totalPrice: { amount: 845.5, currencyCode: 'SAR' },
  subtotalPrice: { amount: 790, currencyCode: 'SAR' },
  lineItems: [line('gid://shopify/Product/8001', 2, 250), line('8002', 1, '290.00')],
  ...over,
});

describe('the web pixel purchase report', () => {
  it('reads a completed checkout into the purchase event the service accepts', () => {
    const body = purchaseEvent(checkout(), SETTINGS, stored(NOW - 2 * DAY), NOW);
    expect(accepted(body)).toBe(true);
    expect(body).toEqual({
      api_key: KEY,
      events: [
        {
          type: 'purchase_completed',
          event_id: 'purchase:5550001234',
          occurred_at: '2026-03-01T12:00:00.000Z',
          session_id: SESSION,
          order_id: '5550001234',
          total: 845.5,
          currency: 'SAR',
          items: [
            { merchant_product_id: '8001', quantity: 2, price: 250 },
            { merchant_product_id: '8002', quantity: 1, price: 290 },
          ],
        },
      ],
    });
  });

  it('posts to the service named by the settings, and reads the session where the widget keeps it', () => {
    expect(eventUrl(SETTINGS)).toBe('https://sillage.example/api/widget/event');
    expect(eventUrl({ base: 'https://sillage.example/', key: KEY })).toBe('https://sillage.example/api/widget/event');
    expect(eventUrl({ base: 'javascript:alert(1)', key: KEY })).toBeNull();
    expect(eventUrl({ base: 'https://sillage.example' })).toBeNull();
    expect(sessionStorageName(KEY)).toBe(`sillage:session:${KEY.slice(0, 16)}`);
    expect(sessionStorageName(undefined)).toBeNull();
  });

  it('leaves the session out when it is older than 30 days, unreadable or absent', () => {
    const sessionOf = (entry: unknown) => purchaseEvent(checkout(), SETTINGS, entry, NOW)?.events[0];
    expect(sessionOf(stored(NOW - SESSION_TTL_MS + 60_000))?.session_id).toBe(SESSION);
    for (const entry of [
      stored(NOW - 31 * DAY),
      stored(NOW - SESSION_TTL_MS),
      '{not json',
      JSON.stringify({ id: SESSION }),
      JSON.stringify({ id: SESSION, at: 'yesterday' }),
      stored(NOW - DAY, 'not-a-uuid'),
      stored(NOW + 365 * DAY),
      JSON.stringify([SESSION, NOW]),
      'null',
      null,
      undefined,
      '',
    ]) {
      const event = sessionOf(entry);
      expect(event).toBeDefined();
      expect(event).not.toHaveProperty('session_id');
    }
  });

  it('reports nothing without an order id', () => {
    expect(purchaseEvent(checkout({ order: null }), SETTINGS, null, NOW)).toBeNull();
    expect(purchaseEvent(checkout({ order: { id: null } }), SETTINGS, null, NOW)).toBeNull();
    expect(purchaseEvent(checkout({ order: { id: 'gid://shopify/Order/abc' } }), SETTINGS, null, NOW)).toBeNull();
    expect(purchaseEvent(undefined, SETTINGS, null, NOW)).toBeNull();
  });

  it('reports nothing when the settings lack the address or the key', () => {
    expect(purchaseEvent(checkout(), { key: KEY }, null, NOW)).toBeNull();
    expect(purchaseEvent(checkout(), { base: SETTINGS.base, key: '' }, null, NOW)).toBeNull();
    expect(purchaseEvent(checkout(), null, null, NOW)).toBeNull();
  });

  it('skips lines without a product, and reports nothing when none is left', () => {
    const body = purchaseEvent(
      checkout({
        lineItems: [line(null, 1, 10), { quantity: 1 }, line('gid://shopify/Product/77', 1, 10), line('x', 1, 10)],
      }),
      SETTINGS,
      null,
      NOW,
    );
    expect(body?.events[0].items).toEqual([{ merchant_product_id: '77', quantity: 1, price: 10 }]);
    expect(
      purchaseEvent(checkout({ lineItems: [line(null, 1, 10), { variant: null }] }), SETTINGS, null, NOW),
    ).toBeNull();
    expect(purchaseEvent(checkout({ lineItems: [] }), SETTINGS, null, NOW)).toBeNull();
    expect(purchaseEvent(checkout({ lineItems: 'many' }), SETTINGS, null, NOW)).toBeNull();
  });

  it('reports at most 200 lines', () => {
    const lines = Array.from({ length: 250 }, (_, i) => line(`gid://shopify/Product/${i + 1}`, 1, 5));
    const items = purchaseEvent(checkout({ lineItems: lines }), SETTINGS, null, NOW)?.events[0].items;
    expect(items).toHaveLength(200);
    expect(items?.[199]?.merchant_product_id).toBe('200');
  });

  it('turns hostile values into sane ones', () => {
    const body = purchaseEvent(
      checkout({
        currencyCode: 'sar',
        totalPrice: { amount: Number.NaN },
        lineItems: [
          line('1', -3, 10), // no purchase: left out
          line('2', 0, 10), // likewise
          line('3', 2.7, Number.NaN), // a whole quantity; an unreadable price is 0
          line('4', '3', '12.5'), // text read as numbers
          line('5', 'three', -8), // unreadable quantity is 1; a negative price is 0
          line('6', 1e9, 1), // at most 10,000 of one product
          line('7', 1, 'Infinity'),
          line('8', 1, { amount: 1e12 }), // beyond what the service takes: 0
        ],
      }),
      SETTINGS,
      42,
      NOW,
    );
    expect(accepted(body)).toBe(true);
    const event = body?.events[0];
    expect(event?.total).toBe(0);
    expect(event?.currency).toBe('SAR');
    expect(event?.items).toEqual([
      { merchant_product_id: '3', quantity: 2, price: 0 },
      { merchant_product_id: '4', quantity: 3, price: 12.5 },
      { merchant_product_id: '5', quantity: 1, price: 0 },
      { merchant_product_id: '6', quantity: 10_000, price: 1 },
      { merchant_product_id: '7', quantity: 1, price: 0 },
      { merchant_product_id: '8', quantity: 1, price: 0 },
    ]);
    expect(event).not.toHaveProperty('session_id');

    const odd = purchaseEvent(
      checkout({ currencyCode: 'riyal', totalPrice: { amount: '-5', currencyCode: 'usd' } }),
      SETTINGS,
      null,
      Number.NaN,
    )?.events[0];
    expect(odd?.total).toBe(0);
    expect(odd?.currency).toBe('USD');
    // an unreadable clock leaves the time to the service
    expect(odd).not.toHaveProperty('occurred_at');
    expect(
      purchaseEvent(checkout({ currencyCode: 42, totalPrice: null }), SETTINGS, null, NOW)?.events[0].currency,
    ).toBe('SAR');
  });

  it('reads Shopify ids as their trailing digits', () => {
    expect(shopifyId('gid://shopify/Order/123')).toBe('123');
    expect(shopifyId(' 456 ')).toBe('456');
    expect(shopifyId(789)).toBe('789');
    for (const bad of [
      'gid://shopify/Order/',
      'gid://shopify/Order/0',
      '000',
      0,
      'gid://other/Order/1',
      '12a',
      -1,
      1.5,
      '',
      null,
      {},
      'x'.repeat(300),
    ]) {
      expect(shopifyId(bad)).toBeNull();
    }
  });

  it('never throws, and never reports more than 200 lines, whatever it is given', () => {
    /** mostly Shopify's shape with any value in each place, sometimes any JSON at all */
    const mostly = <T>(shaped: fc.Arbitrary<T>) =>
      fc.oneof({ arbitrary: shaped, weight: 4 }, { arbitrary: fc.jsonValue(), weight: 1 });
    const gid = (type: string) => fc.nat().map((n) => `gid://shopify/${type}/${n}`);
    const anyLine = mostly(
      fc.record({
        quantity: fc.oneof(fc.integer({ min: -5, max: 20_000 }), fc.double(), fc.jsonValue()),
        variant: mostly(
          fc.record({
            price: mostly(fc.record({ amount: fc.oneof(fc.double(), fc.string(), fc.jsonValue()) })),
            product: mostly(fc.record({ id: fc.oneof({ arbitrary: gid('Product'), weight: 3 }, fc.jsonValue()) })),
          }),
        ),
      }),
    );
    const goodLine = fc
      .tuple(gid('Product'), fc.integer({ min: 1, max: 5 }), fc.double({ min: 0, max: 1000, noNaN: true }))
      .map(([product, quantity, amount]) => line(product, quantity, amount));
    const anyCheckout = mostly(
      fc.record(
        {
          order: mostly(fc.record({ id: fc.oneof({ arbitrary: gid('Order'), weight: 3 }, fc.jsonValue()) })),
          totalPrice: mostly(fc.record({ amount: fc.oneof(fc.double(), fc.jsonValue()) })),
          currencyCode: fc.oneof(fc.constantFrom('SAR', 'USD', 'eur'), fc.string({ maxLength: 4 }), fc.jsonValue()),
          lineItems: mostly(
            fc.oneof(
              fc.array(anyLine, { maxLength: 10 }),
              fc.array(anyLine, { minLength: 190, maxLength: 260 }),
              fc.array(goodLine, { minLength: 190, maxLength: 260 }),
            ),
          ),
        },
        { requiredKeys: ['order', 'lineItems'] },
      ),
    );
    const anySettings = mostly(
      fc.record({
        base: fc.oneof({ arbitrary: fc.webUrl(), weight: 3 }, fc.jsonValue()),
        key: fc.oneof({ arbitrary: fc.constant(KEY), weight: 3 }, fc.string(), fc.jsonValue()),
      }),
    );
    const anySession = fc.oneof(
      fc.jsonValue(),
      fc.string(),
      fc
        .record({
          id: fc.oneof(fc.uuid(), fc.string()),
          at: fc.oneof(fc.constant(NOW - DAY), fc.double(), fc.integer()),
        })
        .map((v) => JSON.stringify(v)),
    );
    const anyNow = fc.oneof(fc.double(), fc.integer(), fc.date({ noInvalidDate: false }), fc.constant(NOW));
    let reported = 0;
    let maxItems = 0;
    fc.assert(
      fc.property(anyCheckout, anySettings, anySession, anyNow, (c, s, session, now) => {
        const body = purchaseEvent(c, s, session, now);
        if (body === null) return;
        const [event] = body.events;
        expect(body.events).toHaveLength(1);
        expect(event.items.length).toBeGreaterThan(0);
        expect(event.items.length).toBeLessThanOrEqual(200);
        expect(event.order_id).toMatch(/^[0-9]{1,20}$/);
        expect(event.event_id).toBe(`purchase:${event.order_id}`);
        expect(event.currency).toMatch(/^[A-Z]{3}$/);
        expect(Number.isFinite(event.total) && event.total >= 0).toBe(true);
        if (event.occurred_at !== undefined)
          expect(event.occurred_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        if (event.session_id !== undefined)
          expect(event.session_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
        for (const item of event.items) {
          expect(item.merchant_product_id).toMatch(/^[0-9]{1,20}$/);
          expect(Number.isInteger(item.quantity) && item.quantity >= 1 && item.quantity <= 10_000).toBe(true);
          expect(Number.isFinite(item.price) && item.price >= 0).toBe(true);
        }
        // the body survives JSON as it is (no NaN, no undefined)
        expect(JSON.parse(JSON.stringify(body))).toEqual(body);
        // and the service takes it, in any currency it knows
        if (CURRENCIES.has(event.currency)) expect(accepted(body)).toBe(true);
        reported++;
        maxItems = Math.max(maxItems, event.items.length);
      }),
      { numRuns: 500 },
    );
    // the generators reach the reporting path, not only the refusals
    expect(reported).toBeGreaterThan(20);
    expect(maxItems).toBe(200);
    // and any value at all in any place (arrays, objects without a prototype, -0, symbols, …)
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), fc.anything(), (c, s, session, now) => {
        const body = purchaseEvent(c, s, session, now as number);
        expect(body === null || body.events[0].items.length <= 200).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
