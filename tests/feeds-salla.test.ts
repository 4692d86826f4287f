import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPage } from '../feeds/index.ts';
import { SALLA_API, salla, sallaBase } from '../feeds/salla.ts';
import type { FeedRow, FeedSource } from '../feeds/types.ts';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', 'feeds', name), 'utf8');
const byId = (rows: FeedRow[]) => new Map(rows.map((r) => [r.merchant_product_id, r]));

const source: FeedSource = {
  kind: 'salla',
  url: 'https://api.salla.test/admin/v2',
  brands: { '3001': 'Maison Francis Kurkdjian' },
};
const url = (page: number) => `https://api.salla.test/admin/v2/products?per_page=60&page=${page}`;
const page1 = readPage('salla', fixture('salla-products-page1.json'), url(1), source);
const page2 = readPage('salla', fixture('salla-products-page2.json'), url(2), source);
const rows = byId([...page1.rows, ...page2.rows]);

const money = (amount: number, currency = 'SAR') => ({ amount, currency });
/** One page of the API holding these products. */
const pageOf = (data: unknown[], pagination: Record<string, unknown> = { currentPage: 1, totalPages: 1 }) =>
  JSON.stringify({ status: 200, success: true, data, pagination });
const product = (extra: Record<string, unknown> = {}) => ({
  id: 1,
  name: 'Hawas 100 ml',
  type: 'product',
  brand: { id: 9, name: 'Rasasi' },
  price: money(260),
  regular_price: money(260),
  sale_price: money(0),
  quantity: 4,
  unlimited_quantity: false,
  status: 'sale',
  is_available: true,
  ...extra,
});
const readOne = (p: Record<string, unknown>, src: FeedSource = source, now?: number) =>
  readPage('salla', pageOf([p]), url(1), src, undefined, now);

describe("Salla Merchant API products (an Arabic store's listing)", () => {
  it('starts at page 1 of 60 on the API base, with the bearer token, in Arabic', () => {
    expect(salla.firstUrl(source)).toBe(url(1));
    expect(salla.firstUrl({ kind: 'salla', url: '' })).toBe(`${SALLA_API}/products?per_page=60&page=1`);
    expect(sallaBase('https://api.salla.dev/admin/v2/')).toBe(SALLA_API);
    expect(sallaBase('https://api.salla.dev/admin/v2/products?page=3')).toBe(SALLA_API);
    expect(salla.headers?.(source, 'tok_123')).toEqual({ Authorization: 'Bearer tok_123', 'Accept-Language': 'ar' });
    expect(salla.headers?.(source, null)).toEqual({ 'Accept-Language': 'ar' });
  });

  it('asks for the next page while currentPage < totalPages, and stops after the last', () => {
    expect(page1.next).toBe(url(2));
    expect(page2.next).toBeNull();
    // the page comes from the pagination, on the page's own URL (never the body's links)
    expect(readPage('salla', pageOf([], { currentPage: 4, totalPages: 9 }), url(4), source).next).toBe(url(5));
    for (const pagination of [{}, { currentPage: 3, totalPages: 3 }, { currentPage: 0, totalPages: 2 }]) {
      expect(readPage('salla', pageOf([], pagination), url(1), source).next).toBeNull();
    }
    expect(readPage('salla', JSON.stringify({ data: [] }), url(1), source)).toEqual({
      rows: [],
      rejected: [],
      next: null,
    });
  });

  it("reads a perfume's skus as its sizes, named by their option values; the default size is the first in stock", () => {
    expect(rows.get('1001')).toEqual({
      merchant_product_id: '1001',
      name: 'Sauvage Eau de Parfum',
      house: 'Dior',
      price: 610,
      sale_price: null,
      currency: 'SAR',
      available: true,
      sizes: [
        { label: '50 مل', ml: 50, price: 420, sale_price: null, available: false },
        { label: '100 مل', ml: 100, price: 610, sale_price: null, available: true },
      ],
      image_url: 'https://cdn.salla.sa/XyZab/1001.jpg',
      product_url: 'https://attar-store.com/ar/p1001',
      description: 'A fresh, spicy fragrance. Bergamot & ambroxan',
      categories: ['عطور رجالية', 'Dior'],
    });
  });

  it('a sale: sale_price above 0 and below regular_price (not price, which is the sale price then)', () => {
    expect(rows.get('1002')).toEqual({
      merchant_product_id: '1002',
      name: 'Oud Wood',
      house: 'Tom Ford',
      price: 800,
      sale_price: 720,
      currency: 'SAR',
      available: true,
      sizes: [{ label: 'one size', ml: null, price: 800, sale_price: 720, available: true }],
      // no main_image: the thumbnail; no urls.customer: url
      image_url: 'https://cdn.salla.sa/XyZab/1002-thumb.jpg',
      product_url: 'https://attar-store.com/ar/p1002',
      description: null,
      categories: ['عطور فاخرة'],
    });
    // its sale has an end date: what the page says depends on when it is read
    expect(page1.timed).toBe(true);
    expect(page2.timed).toBeUndefined();
  });

  it('no sale when sale_price is 0, not below the regular price, or its sale_end has passed (Riyadh time)', () => {
    const prices = (p: Record<string, unknown>, now?: number) => {
      const [row] = readOne(product(p), source, now).rows;
      return [row?.price, row?.sale_price];
    };
    expect(prices({})).toEqual([260, null]);
    expect(prices({ sale_price: money(300) })).toEqual([260, null]);
    expect(prices({ sale_price: money(260) })).toEqual([260, null]);
    // regular_price 0 (no price of its own): the price is the regular price
    expect(prices({ regular_price: money(0), sale_price: money(200) })).toEqual([260, 200]);
    const onSale = { sale_price: money(200), sale_end: '2025-03-31' };
    // 31 March ends at midnight in Riyadh: 21:00 UTC
    expect(prices(onSale, Date.UTC(2025, 2, 31, 20, 59))).toEqual([260, 200]);
    expect(prices(onSale, Date.UTC(2025, 2, 31, 21, 0))).toEqual([260, null]);
    expect(prices({ ...onSale, sale_end: { date: '2025-03-31 23:59:00.000000' } }, Date.UTC(2025, 3, 2))).toEqual([
      260,
      null,
    ]);
    // an end that cannot be read: the sale stands
    expect(prices({ ...onSale, sale_end: 'soon' }, Date.UTC(2030, 0, 1))).toEqual([260, 200]);
  });

  it('reads an Arabic product as the store writes it: its size from the name, its image from images[]', () => {
    expect(rows.get('1003')).toEqual({
      merchant_product_id: '1003',
      name: 'عطر خمرة من لطافة 100 مل',
      house: 'لطافة',
      price: 180,
      sale_price: null,
      currency: 'SAR',
      // quantity null, unlimited_quantity: always available
      available: true,
      sizes: [{ label: '100 ml', ml: 100, price: 180, sale_price: null, available: true }],
      image_url: 'https://cdn.salla.sa/XyZab/khamrah.jpg',
      product_url: 'https://attar-store.com/ar/%D8%B9%D8%B7%D8%B1-%D8%AE%D9%85%D8%B1%D8%A9/p1003',
      description: 'مكونات العطر: القرفة، التمر & الفانيليا.',
      categories: ['عطور عربية', 'عطور رجالية'],
    });
  });

  it('skips hidden products and products that are not goods (service, booking, digital, donating, codes): neither rows nor rejections', () => {
    const read = [...page1.rows, ...page2.rows].map((r) => r.merchant_product_id);
    const rejected = [...page1.rejected, ...page2.rejected].map((r) => r.id);
    for (const id of ['1004', '1005', '1010']) {
      expect(read).not.toContain(id);
      expect(rejected).not.toContain(id);
    }
    for (const type of ['service', 'booking', 'digital', 'donating', 'codes']) {
      expect(readOne(product({ type }))).toEqual({ rows: [], rejected: [], next: null });
    }
    expect(readOne(product({ status: 'hidden' }))).toEqual({ rows: [], rejected: [], next: null });
    // food and grouped products are goods: read
    for (const type of ['product', 'food', 'group_products']) expect(readOne(product({ type })).rows).toHaveLength(1);
  });

  it('splits an EDP and an EDT sold as skus of one product into two rows (amounts given as bare numbers too)', () => {
    expect(rows.get('1008:edp')).toMatchObject({
      name: 'Bleu de Chanel Eau de Parfum',
      house: 'Chanel',
      price: 650,
      available: true,
      sizes: [{ label: 'EDP / 100 مل', ml: 100, price: 650, sale_price: null, available: true }],
    });
    expect(rows.get('1008:edt')).toMatchObject({
      name: 'Bleu de Chanel Eau de Toilette',
      price: 560,
      available: false,
      sizes: [{ label: 'EDT / 100 مل', ml: 100, price: 560, sale_price: null, available: false }],
    });
    expect(rows.has('1008')).toBe(false);
  });

  it("names the house from brand.name, else brand_id through the source's brands; with no brand, none", () => {
    expect(rows.get('1007')?.house).toBe('Maison Francis Kurkdjian');
    expect(page1.rejected).toEqual([]);
    // a brand id the store's brands do not name is refused: the store's brands need reading again
    expect(page2.rejected).toEqual([
      { id: '1009', reason: "the product's brand (id 4040) is not named in the store's brands" },
    ]);
    // no brand at all: read with no house, which the matcher then reads from the name
    expect(rows.get('1006')).toMatchObject({ name: 'Musk Al Tahara', house: '' });
    const bare = { kind: 'salla', url: source.url } satisfies FeedSource;
    expect(readPage('salla', fixture('salla-products-page2.json'), url(2), bare).rejected.map((r) => r.id)).toEqual([
      '1007',
      '1009',
    ]);
    // the map is read for its own keys only
    const { brand: _, ...noBrand } = product();
    expect(readOne({ ...noBrand, brand_id: 'constructor' }, { ...bare, brands: {} }).rejected).toEqual([
      { id: '1', reason: "the product's brand (id constructor) is not named in the store's brands" },
    ]);
    expect(readOne({ ...noBrand, brand: { id: 3001 } }).rows[0]?.house).toBe('Maison Francis Kurkdjian');
  });

  it('availability: a size in stock or of unlimited quantity; a product without skus by is_available, status and quantity', () => {
    // status out, is_available false, quantity 0: stored, not available
    expect(rows.get('1007')).toMatchObject({ available: false, price: 1350 });
    const available = (p: Record<string, unknown>) => readOne(product(p)).rows[0]?.available;
    expect(available({})).toBe(true);
    expect(available({ quantity: null })).toBe(true);
    expect(available({ quantity: 0 })).toBe(false);
    expect(available({ quantity: 0, unlimited_quantity: true })).toBe(true);
    expect(available({ is_available: false })).toBe(false);
    expect(available({ status: 'out' })).toBe(false);

    const sized = (extra: Record<string, unknown>, stocks: unknown[]) =>
      readOne(
        product({
          options: [
            { id: 5, name: 'الحجم', values: stocks.map((_, i) => ({ id: 50 + i, name: `${(i + 1) * 50} مل` })) },
          ],
          skus: stocks.map((stock_quantity, i) => ({
            id: 70 + i,
            price: money(100 * (i + 1)),
            regular_price: { amount: 100 * (i + 1) },
            sale_price: money(0),
            stock_quantity,
            related_option_values: [50 + i],
          })),
          ...extra,
        }),
      ).rows[0]?.sizes.map((s) => s.available);
    expect(sized({}, [0, 2, '3', null])).toEqual([false, true, true, false]);
    expect(sized({ unlimited_quantity: true }, [0, 0])).toEqual([true, true]);
    // the store says the product is out: no size of it can be bought
    expect(sized({ status: 'out' }, [5, 5])).toEqual([false, false]);
  });

  it("a product's options without skus, or skus naming no option value, are read defensively", () => {
    // options given but no skus: the product is one size
    const [one] = readOne(product({ options: [{ id: 5, values: [{ id: 51, name: '100 مل' }] }], skus: [] })).rows;
    expect(one?.sizes).toEqual([{ label: '100 ml', ml: 100, price: 260, sale_price: null, available: true }]);
    // a sku whose option values are objects with their names
    const [named] = readOne(
      product({
        options: [{ id: 5, values: [{ id: 51, name: '50 مل' }] }],
        skus: [{ id: 7, price: 90, stock_quantity: 1, related_option_values: [{ id: 99, name: '30 مل' }] }],
      }),
    ).rows;
    expect(named?.sizes).toEqual([{ label: '30 مل', ml: 30, price: 90, sale_price: null, available: true }]);
  });

  it("reads the product's gtin and each sku's barcode, never its sku or mpn; a size without one has none", () => {
    const sizes = {
      options: [
        {
          id: 5,
          values: [
            { id: 51, name: '100 مل' },
            { id: 52, name: '50 مل' },
            { id: 53, name: '30 مل' },
          ],
        },
      ],
      skus: [
        {
          id: 71,
          price: 260,
          stock_quantity: 0,
          related_option_values: [51],
          sku: '6291100000001',
          barcode: ' 6291107456010 ',
        },
        {
          id: 72,
          price: 180,
          stock_quantity: 2,
          related_option_values: [52],
          sku: '6291100000002',
          barcode: 6291107456027,
        },
        { id: 73, price: 120, stock_quantity: 2, related_option_values: [53], sku: '6291100000003', barcode: '' },
      ],
    };
    const codes = { sku: '6291100000000', mpn: '6291100000009' };
    // the product's own gtin is the row's; each size keeps its sku's
    const [withGtin] = readOne(product({ ...sizes, ...codes, gtin: '6291107456003' })).rows;
    expect(withGtin).toMatchObject({ price: 180, barcode: '6291107456003' });
    expect(withGtin?.sizes.map((z) => [z.label, z.barcode])).toEqual([
      ['100 مل', '6291107456010'],
      ['50 مل', '6291107456027'],
      ['30 مل', undefined],
    ]);
    expect(withGtin?.sizes[2]).not.toHaveProperty('barcode');
    // no gtin: the default size's (the 100 ml is sold out: the 50 ml's, whose price the row takes)
    const [noGtin] = readOne(product({ ...sizes, ...codes, gtin: '' })).rows;
    expect(noGtin).toMatchObject({ price: 180, barcode: '6291107456027' });
    // a product without skus is one size: the gtin is the row's and its size's
    const [single] = readOne(product({ gtin: '6291107456003' })).rows;
    expect(single).toMatchObject({ barcode: '6291107456003', sizes: [{ barcode: '6291107456003' }] });
    // sku and mpn are not barcodes, however they look
    const [codesOnly] = readOne(product({ ...codes, gtin: '' })).rows;
    expect(codesOnly).toBeDefined();
    expect(codesOnly).not.toHaveProperty('barcode');
    expect(codesOnly?.sizes[0]).not.toHaveProperty('barcode');
    const [skuCodes] = readOne(
      product({ ...sizes, skus: sizes.skus.map(({ barcode: _, ...sku }) => sku), ...codes, gtin: null }),
    ).rows;
    expect(skuCodes).not.toHaveProperty('barcode');
    for (const z of skuCodes?.sizes ?? []) expect(z).not.toHaveProperty('barcode');
    // the fixtures' empty gtin and barcodes give none
    for (const r of rows.values()) expect(r).not.toHaveProperty('barcode');
  });

  it('a product split by concentration: each row takes its default size’s barcode, not the product’s gtin', () => {
    const split = byId(
      readOne(
        product({
          id: 77,
          name: 'Bleu de Chanel',
          gtin: '3145891073003',
          options: [
            {
              id: 8,
              values: [
                { id: 81, name: 'EDP' },
                { id: 82, name: 'EDT' },
              ],
            },
            { id: 9, values: [{ id: 91, name: '100 مل' }] },
          ],
          skus: [
            { id: 1, price: 650, stock_quantity: 3, related_option_values: [81, 91], barcode: '3145891073607' },
            { id: 2, price: 560, stock_quantity: 3, related_option_values: [82, 91] },
          ],
        }),
      ).rows,
    );
    expect(split.get('77:edp')).toMatchObject({ barcode: '3145891073607', sizes: [{ barcode: '3145891073607' }] });
    expect(split.get('77:edt')).toBeDefined();
    expect(split.get('77:edt')).not.toHaveProperty('barcode');
  });

  it("takes the currency from the price objects, else the source's", () => {
    expect(readOne(product({ price: money(260, 'AED'), regular_price: money(260, 'AED') })).rows[0]?.currency).toBe(
      'AED',
    );
    const plain = product({ price: { amount: 260 }, regular_price: { amount: 260 }, sale_price: { amount: 0 } });
    expect(readOne(plain).rows[0]?.currency).toBe('SAR');
    expect(readOne(plain, { ...source, currency: 'KWD' }).rows[0]?.currency).toBe('KWD');
  });

  it('rejects a product without an id or a name, with why', () => {
    expect(readOne(product({ id: null })).rejected).toEqual([{ reason: 'the product has no id' }]);
    expect(readOne(product({ name: '  ' })).rejected).toEqual([{ id: '1', reason: 'the product has no name' }]);
  });

  it('a body that is not JSON, or has no data list, fails the page with the reason', () => {
    expect(readPage('salla', '<html>login</html>', url(1), source)).toEqual({
      rows: [],
      rejected: [{ reason: 'the page is not JSON' }],
      next: null,
      failed: true,
    });
    for (const body of ['{"status":401,"success":false,"error":{"code":"Unauthorized"}}', '[]', '{"data":{}}']) {
      expect(readPage('salla', body, url(1), source)).toEqual({
        rows: [],
        rejected: [{ reason: 'the page has no "data" list of products' }],
        next: null,
        failed: true,
      });
    }
  });
});
