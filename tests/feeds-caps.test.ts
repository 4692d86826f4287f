import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  barcodeOf,
  MAX_BARCODE,
  MAX_DOCUMENT_CHARS,
  MAX_ITEMS_PER_DOCUMENT,
  MAX_ITEMS_PER_PAGE,
  MAX_PAGE_CHARS,
} from '../feeds/common.ts';

const DOC = MAX_ITEMS_PER_DOCUMENT;

import { MAX_XML_DEPTH, MAX_XML_TAGS } from '../feeds/google.ts';
import { connectorFor, FEED_KINDS, readPage } from '../feeds/index.ts';
import type { FeedKind, FeedPage, FeedSource } from '../feeds/types.ts';

const src = (kind: FeedKind): FeedSource => ({ kind, url: 'https://shop.example/feed' });

/** What every page must hold, whatever it was read from. */
function checkPage(page: FeedPage) {
  expect(page.rows.length).toBeLessThanOrEqual(MAX_ITEMS_PER_PAGE * 100);
  for (const r of page.rows) {
    expect(r.sizes.length).toBeGreaterThan(0);
    const d = r.sizes.find((s) => s.available) ?? r.sizes[0];
    expect(r.price).toBe(d?.price);
    expect(r.sale_price).toBe(d?.sale_price);
    expect(r.available).toBe(r.sizes.some((s) => s.available));
    expect(r.merchant_product_id.length).toBeGreaterThan(0);
    expect(r.merchant_product_id.length).toBeLessThanOrEqual(200);
    expect(r.name.length).toBeGreaterThan(0);
    expect(r.name.length).toBeLessThanOrEqual(300);
    expect(r.house.length).toBeGreaterThan(0);
    expect(r.house.length).toBeLessThanOrEqual(200);
    expect((r.description ?? '').length).toBeLessThanOrEqual(4000);
    for (const u of [r.image_url, r.product_url]) if (u !== null) expect(u).toMatch(/^https?:\/\/.{1,1990}$/);
    for (const s of r.sizes) if (s.sale_price !== null) expect(s.sale_price).toBeLessThan(s.price ?? 0);
    // a barcode is emitted only when there is one: trimmed text of 1–40 characters
    for (const b of [r.barcode, ...r.sizes.map((s) => s.barcode)]) {
      if (b === undefined) continue;
      expect(typeof b).toBe('string');
      expect((b as string).length).toBeGreaterThan(0);
      expect((b as string).length).toBeLessThanOrEqual(MAX_BARCODE);
      expect(b).toBe((b as string).trim());
    }
  }
  for (const p of page.rejected) expect(p.reason.length).toBeGreaterThan(0);
}

const shopifyProduct = (i: number, extra: Record<string, unknown> = {}) => ({
  id: i,
  title: `Perfume ${i}`,
  vendor: 'House',
  handle: `p-${i}`,
  variants: [{ title: '100 ml', price: '10.00', available: true }],
  ...extra,
});

const sallaProduct = (i: number, extra: Record<string, unknown> = {}) => ({
  id: i,
  name: `Perfume ${i} 100 ml`,
  brand: { id: 1, name: 'House' },
  price: { amount: 10, currency: 'SAR' },
  is_available: true,
  ...extra,
});

describe('caps: every connector bounds its work', () => {
  it('reads 1,000 items of an API page of 5,000, and 50,000 of one feed document, and rejects the rest in one line', () => {
    const shop = JSON.stringify({ products: Array.from({ length: 5000 }, (_, i) => shopifyProduct(i)) });
    const page = readPage('shopify', shop, 'https://shop.example/products.json?page=1', src('shopify'));
    expect(page.rows).toHaveLength(MAX_ITEMS_PER_PAGE);
    expect(page.rejected).toEqual([{ reason: '4000 items past the first 1000 of this page were not read' }]);
    checkPage(page);

    const items = Array.from(
      { length: DOC + 100 },
      (_, i) =>
        `<item><g:id>${i}</g:id><g:title>Perfume ${i} 100ml</g:title><g:brand>B</g:brand><g:price>10 SAR</g:price></item>`,
    ).join('');
    const rss = readPage(
      'google',
      `<rss xmlns:g="g"><channel>${items}</channel></rss>`,
      'https://x.example/f',
      src('google'),
    );
    expect(rss.rows).toHaveLength(DOC);
    expect(rss.rejected).toEqual([{ reason: `100 items past the first ${DOC} of this page were not read` }]);

    const tsv = `id\ttitle\tbrand\tprice\n${Array.from({ length: DOC + 100 }, (_, i) => `${i}\tP ${i}\tB\t10 SAR`).join('\n')}\n`;
    const t = readPage('google', tsv, 'https://x.example/f.tsv', src('google'));
    expect(t.rows).toHaveLength(DOC);
    expect(t.rejected).toEqual([{ reason: `100 items past the first ${DOC} of this page were not read` }]);

    const csv = `merchant_product_id,name,house,price\n${Array.from({ length: DOC + 100 }, (_, i) => `${i},P ${i},B,10`).join('\n')}\n`;
    const c = readPage('csv', csv, 'https://x.example/f.csv', src('csv'));
    expect(c.rows).toHaveLength(DOC);
    expect(c.rejected).toEqual([{ reason: `100 items past the first ${DOC} of this page were not read` }]);

    const woo = JSON.stringify(
      Array.from({ length: 5000 }, (_, i) => ({ id: i, name: `P${i}`, brands: [{ name: 'B' }] })),
    );
    expect(readPage('woocommerce', woo, 'https://x.example/', src('woocommerce')).rows).toHaveLength(
      MAX_ITEMS_PER_PAGE,
    );

    const sallaPage = JSON.stringify({
      data: Array.from({ length: 5000 }, (_, i) => sallaProduct(i)),
      pagination: { currentPage: 1, totalPages: 3 },
    });
    const s = readPage('salla', sallaPage, 'https://api.salla.example/admin/v2/products?page=1', src('salla'));
    expect(s.rows).toHaveLength(MAX_ITEMS_PER_PAGE);
    expect(s.rejected).toEqual([{ reason: '4000 items past the first 1000 of this page were not read' }]);
    expect(s.next).toBe('https://api.salla.example/admin/v2/products?page=2');
    checkPage(s);
  });

  it('cuts a 5 MB description to 4,000 characters, in bounded time', () => {
    const huge = '<p>bergamot, amber &amp; musk</p> '.repeat(160_000);
    const cases: [FeedKind, string][] = [
      ['shopify', JSON.stringify({ products: [shopifyProduct(1, { body_html: huge })] })],
      ['woocommerce', JSON.stringify([{ id: 1, name: 'P', brands: [{ name: 'B' }], description: huge }])],
      ['salla', JSON.stringify({ data: [sallaProduct(1, { description: huge })] })],
      [
        'google',
        `<rss xmlns:g="g"><channel><item><g:id>1</g:id><g:title>P</g:title><g:brand>B</g:brand><g:description><![CDATA[${huge}]]></g:description></item></channel></rss>`,
      ],
      [
        'google',
        `<rss xmlns:g="g"><channel><item><g:id>1</g:id><g:title>P</g:title><g:brand>B</g:brand><g:description>${huge.replaceAll('<', '&lt;').replaceAll('>', '&gt;')}</g:description></item></channel></rss>`,
      ],
      ['json', JSON.stringify([{ merchant_product_id: '1', name: 'P', house: 'B', description: huge }])],
      ['csv', `merchant_product_id,name,house,description\n1,P,B,"${huge}"\n`],
    ];
    for (const [kind, body] of cases) {
      expect(body.length).toBeGreaterThan(5_000_000);
      const page = readPage(kind, body, 'https://x.example/f', src(kind));
      expect(page.rows, kind).toHaveLength(1);
      expect(page.rows[0]?.description?.length, kind).toBeLessThanOrEqual(4000);
      expect(page.rows[0]?.description, kind).toMatch(/^bergamot, amber & musk/);
    }
  });

  it('cuts long names and houses to the sync limits, and drops URLs longer than 2,000 characters', () => {
    const body = JSON.stringify({
      products: [shopifyProduct(1, { title: 'N'.repeat(1000), vendor: 'H'.repeat(1000), handle: 'x'.repeat(3000) })],
    });
    const [row] = readPage('shopify', body, 'https://shop.example/products.json', src('shopify')).rows;
    expect(row?.name).toHaveLength(300);
    expect(row?.house).toHaveLength(200);
    expect(row?.product_url).toBeNull();
  });

  it('cuts a barcode to 40 characters, reads a number as its digits, and no text as none', () => {
    expect(MAX_BARCODE).toBe(40);
    expect(barcodeOf(' 3348901250146 ')).toBe('3348901250146');
    // leading zeros are the barcode's own: text is kept as written
    expect(barcodeOf('012345678905')).toBe('012345678905');
    expect(barcodeOf(3348901250146)).toBe('3348901250146');
    expect(barcodeOf(1e21)).toBe('1000000000000000000000');
    expect(barcodeOf('9'.repeat(100))).toBe('9'.repeat(40));
    // not checked here: a malformed one is passed on for the sync to refuse
    expect(barcodeOf('ABC-123')).toBe('ABC-123');
    for (const none of ['', '   ', null, undefined, true, {}, [], Number.NaN, Number.POSITIVE_INFINITY])
      expect(barcodeOf(none), String(none)).toBeNull();
    const body = JSON.stringify({
      products: [shopifyProduct(1, { variants: [{ title: '100 ml', price: '10.00', barcode: '7'.repeat(500) }] })],
    });
    const [row] = readPage('shopify', body, 'https://shop.example/products.json', src('shopify')).rows;
    expect(row?.barcode).toBe('7'.repeat(40));
    expect(row?.sizes[0]?.barcode).toBe('7'.repeat(40));
  });

  it('refuses deeply nested XML', () => {
    const deep = `<rss><channel><item><g:id>1</g:id>${'<a>'.repeat(MAX_XML_DEPTH * 2)}x${'</a>'.repeat(MAX_XML_DEPTH * 2)}</item></channel></rss>`;
    expect(readPage('google', deep, 'https://x.example/f', src('google')).rejected[0]?.reason).toMatch(
      /not XML that can be read \(Maximum nested tags exceeded\)/,
    );
    const huge = `<rss><channel>${'<a>'.repeat(MAX_XML_TAGS + 1)}`;
    const page = readPage('google', huge, 'https://x.example/f', src('google'));
    expect(page.rejected).toEqual([{ reason: `the feed's items hold more than ${MAX_XML_TAGS} elements` }]);
  });

  it('refuses entity expansion ("billion laughs"), wherever the DTD is, and never expands an entity', () => {
    const lol = (at: 'prolog' | 'inside') => {
      const dtd = `<!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('')}]>`;
      const item = '<item><g:id>1</g:id><g:title>&lol9;</g:title><g:brand>B</g:brand></item>';
      return at === 'prolog'
        ? `<?xml version="1.0"?>${dtd}<rss xmlns:g="g"><channel>${item}</channel></rss>`
        : `<rss xmlns:g="g">${dtd}<channel>${item}</channel></rss>`;
    };
    for (const at of ['prolog', 'inside'] as const) {
      const page = readPage('google', lol(at), 'https://x.example/f', src('google'));
      expect(page.rows).toEqual([]);
      expect(page.rejected[0]?.reason).toMatch(/declares a document type or entities/);
    }
    // an entity never declared is left as written
    const undeclared =
      '<rss xmlns:g="g"><channel><item><g:id>1</g:id><g:title>A &lol9; &amp;lt; B</g:title><g:brand>B</g:brand></item></channel></rss>';
    expect(readPage('google', undeclared, 'https://x.example/f', src('google')).rows[0]?.name).toBe('A &lol9; &lt; B');
  });

  it('refuses a page longer than the cap without reading it', () => {
    for (const kind of FEED_KINDS) {
      const one = kind === 'google' || kind === 'csv' || kind === 'json';
      const body = ' '.repeat((one ? MAX_DOCUMENT_CHARS : MAX_PAGE_CHARS) + 1);
      const page = readPage(kind, body, 'https://x.example/f', src(kind));
      expect(page.rows).toEqual([]);
      expect(page.rejected[0]?.reason, kind).toMatch(/longer than/);
    }
  });

  it('an unknown kind is a rejected page; connectorFor names each kind', () => {
    expect(readPage('ebay' as FeedKind, '', 'https://x.example', src('csv')).rejected[0]?.reason).toMatch(
      /no connector/,
    );
    expect(() => connectorFor('ebay' as FeedKind)).toThrow(/no connector/);
    for (const kind of FEED_KINDS) expect(connectorFor(kind).kind).toBe(kind);
  });
});

describe('properties', () => {
  it('no connector throws on any text, and every page it reads holds the rules', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FEED_KINDS), fc.string({ maxLength: 400 }), (kind, body) => {
        checkPage(readPage(kind, body, 'https://x.example/f?page=1', src(kind)));
      }),
      { numRuns: 600 },
    );
  });

  it('no connector throws on any JSON, and every page it reads holds the rules', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FEED_KINDS), fc.jsonValue({ maxDepth: 4 }), (kind, value) => {
        const bodies = [
          JSON.stringify(value),
          JSON.stringify({ products: [value] }),
          JSON.stringify([value]),
          JSON.stringify({ data: [value], pagination: value }),
        ];
        for (const body of bodies) checkPage(readPage(kind, body, 'https://x.example/f?page=1', src(kind)));
      }),
      { numRuns: 300 },
    );
  });

  it('a product read from Shopify variants: price is the default size price, available is any size available', () => {
    const variant = fc.record({
      title: fc.constantFrom(
        '100 ml',
        '50 ml',
        '3.4 oz',
        '١٠٠ مل',
        'EDP / 100 ml',
        'EDT / 50 ml',
        'Tester',
        'Default Title',
        'Gift Set',
        '',
      ),
      price: fc.option(fc.integer({ min: 0, max: 100_000 }).map((n) => (n / 100).toFixed(2))),
      compare_at_price: fc.option(fc.integer({ min: 0, max: 100_000 }).map((n) => (n / 100).toFixed(2))),
      available: fc.boolean(),
      barcode: fc.option(fc.constantFrom('3348901250146', ' 012345678905 ', '', 6291100123445)),
    });
    fc.assert(
      fc.property(fc.array(variant, { minLength: 1, maxLength: 12 }), (variants) => {
        const body = JSON.stringify({ products: [shopifyProduct(1, { variants })] });
        const page = readPage('shopify', body, 'https://shop.example/products.json', src('shopify'));
        checkPage(page);
        // Shopify has no product barcode: each row's is its default size's, or none
        for (const r of page.rows) expect(r.barcode).toBe((r.sizes.find((z) => z.available) ?? r.sizes[0])?.barcode);
        expect(page.rows.reduce((n, r) => n + r.sizes.length, 0)).toBe(variants.length);
        expect(new Set(page.rows.map((r) => r.merchant_product_id)).size).toBe(page.rows.length);
      }),
      { numRuns: 300 },
    );
  });

  it('a product read from Salla skus: one size per sku, the default size gives the price, any size available makes the row available', () => {
    const labels = ['50 مل', '100 مل', '3.4 oz', 'EDP', 'EDT', 'تستر', 'طقم هدية', 'Elixir', ''];
    const amount = fc.oneof(
      fc.integer({ min: 0, max: 100_000 }).map((n) => ({ amount: n / 100, currency: 'SAR' })),
      fc.integer({ min: 0, max: 1000 }),
      fc.constant(null),
    );
    const sku = fc.record({
      values: fc.subarray([0, 1, 2, 3, 4, 5, 6, 7, 8], { maxLength: 2 }),
      price: amount,
      regular_price: amount,
      sale_price: amount,
      stock_quantity: fc.option(fc.integer({ min: -1, max: 5 })),
      unlimited_quantity: fc.option(fc.boolean()),
    });
    fc.assert(
      fc.property(
        fc.array(sku, { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        fc.constantFrom('sale', 'out'),
        (skus, unlimited, status) => {
          const options = [{ id: 1, values: labels.map((name, i) => ({ id: 100 + i, name })) }];
          const body = JSON.stringify({
            data: [
              sallaProduct(1, {
                status,
                unlimited_quantity: unlimited,
                options,
                skus: skus.map(({ values, ...s }, i) => ({
                  id: i,
                  ...s,
                  related_option_values: values.map((v) => 100 + v),
                })),
              }),
            ],
          });
          const page = readPage('salla', body, 'https://api.salla.example/admin/v2/products?page=1', src('salla'));
          checkPage(page);
          expect(page.rejected).toEqual([]);
          expect(page.rows.reduce((n, r) => n + r.sizes.length, 0)).toBe(skus.length);
          expect(new Set(page.rows.map((r) => r.merchant_product_id)).size).toBe(page.rows.length);
          if (status === 'out') for (const r of page.rows) expect(r.available).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('arbitrary XML-ish text never throws', () => {
    const piece = fc.constantFrom(
      '<rss>',
      '<channel>',
      '<item>',
      '</item>',
      '<g:id>',
      '</g:id>',
      '<![CDATA[',
      ']]>',
      '&amp;',
      '&#x110000;',
      '<!DOCTYPE',
      '<feed>',
      '<entry>',
      '<link href="x"/>',
      'text',
      '<',
      '>',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (parts) => {
        checkPage(readPage('google', parts.join(''), 'https://x.example/f', src('google')));
      }),
      { numRuns: 500 },
    );
  });
});
