import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPage } from '../feeds/index.ts';
import { nextFromLink, shopify, shopifyAdmin } from '../feeds/shopify.ts';
import type { FeedRow, FeedSource } from '../feeds/types.ts';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', 'feeds', name), 'utf8');
const byId = (rows: FeedRow[]) => new Map(rows.map((r) => [r.merchant_product_id, r]));

describe('Shopify storefront listing (products.json)', () => {
  const source: FeedSource = { kind: 'shopify', url: 'https://shop.example/collections/all' };
  const url = 'https://shop.example/products.json?limit=250&page=1';
  const page = readPage('shopify', fixture('shopify-products.json'), url, source);
  const rows = byId(page.rows);

  it('starts at page 1 of 250 products on the shop origin, and names the next page', () => {
    expect(shopify.firstUrl(source)).toBe('https://shop.example/products.json?limit=250&page=1');
    expect(shopify.firstUrl({ kind: 'shopify', url: 'shop.example' })).toBe(url);
    expect(page.next).toBe('https://shop.example/products.json?limit=250&page=2');
  });

  it('stops at a page without products', () => {
    expect(
      readPage('shopify', '{"products":[]}', 'https://shop.example/products.json?limit=250&page=7', source),
    ).toEqual({ rows: [], rejected: [], next: null });
  });

  it('splits an EDP and an EDT sold as variants of one product into two rows, each with its sizes', () => {
    const edp = rows.get('7001:edp');
    const edt = rows.get('7001:edt');
    expect(edp).toMatchObject({
      name: 'Bleu de Chanel Eau de Parfum',
      house: 'Chanel',
      price: 650,
      sale_price: null,
      currency: 'SAR',
      available: true,
      image_url: 'https://cdn.shop.example/files/bleu.jpg',
      product_url: 'https://shop.example/products/bleu-de-chanel',
      categories: ['Perfume', 'men', 'woody'],
    });
    expect(edp?.sizes).toEqual([
      { label: 'Eau de Parfum / 100 ml', ml: 100, price: 650, sale_price: null, available: true },
      { label: 'Eau de Parfum / 50 ml', ml: 50, price: 480, sale_price: null, available: false },
    ]);
    // compare_at_price above the price: a sale; equal to it: no sale
    expect(edt).toMatchObject({ name: 'Bleu de Chanel Eau de Toilette', price: 600, sale_price: 520 });
    expect(edt?.sizes.map((s) => [s.ml, s.price, s.sale_price])).toEqual([
      [100, 600, 520],
      [50, 400, null],
    ]);
  });

  it('reads the description as plain text, without scripts', () => {
    expect(rows.get('7001:edp')?.description).toBe(
      'A woody aromatic fragrance. Top: grapefruit, mint Base: cedar & sandalwood',
    );
  });

  it('keeps a tester as its own row, not a size of the bottle', () => {
    expect(rows.get('7002')).toMatchObject({ name: 'Khamrah Eau de Parfum', price: 220, sale_price: 180 });
    expect(rows.get('7002')?.sizes).toHaveLength(1);
    expect(rows.get('7002:tester')).toMatchObject({ name: 'Khamrah Eau de Parfum Tester', price: 150 });
  });

  it('a product sold out in full is stored, not available', () => {
    expect(rows.get('7003')).toMatchObject({ available: false, price: 1150 });
    expect(rows.get('7003')?.sizes).toEqual([
      { label: 'one size', ml: null, price: 1150, sale_price: null, available: false },
    ]);
  });

  it('the default size is the first available one: its price is the row price', () => {
    const hawas = rows.get('7004');
    expect(hawas?.sizes.map((s) => [s.label, s.ml, s.available])).toEqual([
      ['1.7 oz', 50, false],
      ['3.4 oz', 100, true],
      ['١٠ مل', 10, true],
    ]);
    expect(hawas).toMatchObject({ price: 260, sale_price: 230, available: true });
  });

  it('reads a product without a vendor with no house: the matcher reads it from the title', () => {
    expect(page.rejected).toEqual([]);
    expect(page.rows).toHaveLength(7);
    expect(rows.get('7005')).toMatchObject({ name: 'Gift card', house: '' });
  });
});

describe('Shopify Admin API', () => {
  const source: FeedSource = { kind: 'shopify_admin', url: 'https://shop.example', currency: 'AED' };
  const url = 'https://shop.example/admin/api/2024-10/products.json?limit=250&status=active';
  const link =
    '<https://shop.example/admin/api/2024-10/products.json?limit=250&page_info=prev1>; rel="previous", ' +
    '<https://shop.example/admin/api/2024-10/products.json?limit=250&page_info=next2>; rel="next"';
  const page = readPage('shopify_admin', fixture('shopify-admin-products.json'), url, source, { Link: link });
  const rows = byId(page.rows);

  it('asks for active products with the access token', () => {
    expect(shopifyAdmin.firstUrl(source)).toBe(url);
    expect(shopifyAdmin.headers?.(source, 'shpat_x')).toEqual({ 'X-Shopify-Access-Token': 'shpat_x' });
    expect(shopifyAdmin.headers?.(source, null)).toEqual({});
  });

  it('pages by the Link header, on the shop origin only', () => {
    expect(page.next).toBe('https://shop.example/admin/api/2024-10/products.json?limit=250&page_info=next2');
    expect(readPage('shopify_admin', fixture('shopify-admin-products.json'), url, source).next).toBeNull();
    expect(nextFromLink('<https://evil.example/steal>; rel="next"', url)).toBeNull();
    expect(nextFromLink('<https://shop.example/x>; rel="previous"', url)).toBeNull();
  });

  it('reads stock from inventory: tracked and none left is sold out; continue-selling or untracked is available', () => {
    const amber = rows.get('8001');
    expect(amber?.sizes.map((s) => [s.ml, s.available])).toEqual([
      [100, false],
      [50, true],
      [30, true],
    ]);
    // the 100 ml is on sale but sold out: the default size is the 50 ml
    expect(amber).toMatchObject({ price: 210, sale_price: null, currency: 'AED', available: true });
    expect(amber?.sizes[0]).toMatchObject({ price: 400, sale_price: 320 });
    expect(amber?.categories).toEqual(['Eau de Parfum', 'women', 'amber', 'vanilla']);
    expect(rows.get('8002')).toMatchObject({ available: true, price: 35, image_url: null, description: null });
  });

  it('rejects a draft', () => {
    expect(page.rejected).toEqual([{ id: '8003', reason: 'the product is draft, not active' }]);
  });
});

describe('Shopify barcodes', () => {
  const source: FeedSource = { kind: 'shopify_admin', url: 'https://shop.example' };
  const url = 'https://shop.example/admin/api/2024-10/products.json?limit=250&status=active';
  const variant = (title: string, price: string, extra: Record<string, unknown> = {}) => ({
    title,
    price,
    inventory_management: null,
    ...extra,
  });
  const read = (variants: unknown[]) =>
    byId(
      readPage(
        'shopify_admin',
        JSON.stringify({
          products: [{ id: 9001, title: 'Bleu de Chanel', vendor: 'Chanel', status: 'active', variants }],
        }),
        url,
        source,
      ).rows,
    );

  it("each size keeps its variant's barcode; a row's is its default size's; a variant without one has none", () => {
    const rows = read([
      variant('EDP / 100 ml', '650.00', {
        barcode: ' 3145891073607 ',
        inventory_management: 'shopify',
        inventory_quantity: 0,
      }),
      variant('EDP / 50 ml', '480.00', { barcode: '3145891073508' }),
      variant('EDT / 100 ml', '600.00', { barcode: null }),
      variant('EDT / 50 ml', '400.00', { barcode: '' }),
    ]);
    // the 100 ml EDP is sold out: the row's barcode is the 50 ml's, whose price it takes
    expect(rows.get('9001:edp')).toMatchObject({ price: 480, barcode: '3145891073508' });
    expect(rows.get('9001:edp')?.sizes).toEqual([
      { label: 'EDP / 100 ml', ml: 100, price: 650, sale_price: null, available: false, barcode: '3145891073607' },
      { label: 'EDP / 50 ml', ml: 50, price: 480, sale_price: null, available: true, barcode: '3145891073508' },
    ]);
    // no variant of the EDT has one: neither the row nor its sizes carry a barcode
    const edt = rows.get('9001:edt');
    expect(edt).toBeDefined();
    expect(edt).not.toHaveProperty('barcode');
    for (const s of edt?.sizes ?? []) expect(s).not.toHaveProperty('barcode');
  });

  it('a barcode given as a number is read as its digits', () => {
    const rows = read([variant('100 ml', '650.00', { barcode: 3145891073607 })]);
    expect(rows.get('9001')?.barcode).toBe('3145891073607');
    expect(rows.get('9001')?.sizes[0]?.barcode).toBe('3145891073607');
  });
});
