import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPage } from '../feeds/index.ts';
import type { FeedRow, FeedSource } from '../feeds/types.ts';
import { minorUnits, woocommerce, wordpressBase } from '../feeds/woocommerce.ts';

const body = readFileSync(join(import.meta.dirname, 'fixtures', 'feeds', 'woocommerce-products-ar.json'), 'utf8');
const source: FeedSource = { kind: 'woocommerce', url: 'https://attar.example/' };
const url = 'https://attar.example/wp-json/wc/store/v1/products?per_page=100&page=1';

describe('WooCommerce Store API, an Arabic shop', () => {
  const page = readPage('woocommerce', body, url, source);
  const rows = new Map<string, FeedRow>(page.rows.map((r) => [r.merchant_product_id, r]));

  it('starts at page 1 of 100', () => {
    expect(woocommerce.firstUrl(source)).toBe(url);
  });

  it('reads prices in minor units, with the sale, the brand attribute, categories and plain description', () => {
    expect(rows.get('101')).toEqual({
      merchant_product_id: '101',
      name: 'عطر خمرة',
      house: 'لطافة',
      price: 220,
      sale_price: 180,
      currency: 'SAR',
      available: true,
      sizes: [{ label: 'one size', ml: null, price: 220, sale_price: 180, available: true }],
      image_url: 'https://attar.example/wp-content/uploads/khamrah.jpg',
      product_url: 'https://attar.example/product/khamrah/',
      description: 'مكونات العطر: القرفة، التمر، الفانيليا & التونكا.',
      categories: ['عطور رجالية'],
    });
  });

  it('names the sizes of a variable product by its terms, priced from the price range', () => {
    const oud = rows.get('102');
    expect(oud?.house).toBe('العربية للعود');
    expect(oud?.sizes).toEqual([
      { label: '50 مل', ml: 50, price: 250, sale_price: null, available: true },
      { label: '١٠٠ مل', ml: 100, price: 420, sale_price: null, available: true },
    ]);
    expect(oud?.price).toBe(250);
  });

  it('a product out of stock, in a currency of three decimals, its house from the brands field', () => {
    expect(rows.get('103')).toMatchObject({
      house: 'أجمل',
      price: 45.5,
      currency: 'KWD',
      available: false,
      image_url: 'https://attar.example/wp-content/uploads/amir.jpg',
    });
  });

  it('splits variations by concentration, named in Arabic', () => {
    expect(rows.get('104:edp')).toMatchObject({ name: 'عطر حياتي أو دو بارفان', price: 90 });
    expect(rows.get('104:edt')).toMatchObject({ name: 'عطر حياتي أو دو تواليت', price: 90 });
    expect(rows.has('104')).toBe(false);
  });

  it('reads a product without a brand with no house: the matcher reads it from the name', () => {
    expect(page.rejected).toEqual([]);
    expect(rows.get('105')).toMatchObject({ name: 'مبخرة كهربائية', house: '' });
  });

  it('asks for the next page while pages are full, or as X-WP-TotalPages says', () => {
    expect(page.next).toBeNull();
    const full = JSON.stringify(Array.from({ length: 100 }, () => ({})));
    expect(readPage('woocommerce', full, url, source).next).toBe(url.replace('&page=1', '&page=2'));
    expect(readPage('woocommerce', body, url, source, { 'X-WP-TotalPages': '3' }).next).toBe(
      url.replace('&page=1', '&page=2'),
    );
    expect(readPage('woocommerce', '[]', url, source).next).toBeNull();
  });

  it('minor units', () => {
    expect(minorUnits('15000', 2)).toBe(150);
    expect(minorUnits('45500', 3)).toBe(45.5);
    expect(minorUnits('150', 0)).toBe(150);
    expect(minorUnits('-5', 2)).toBeNull();
    expect(minorUnits('1.5', 2)).toBeNull();
  });
});

describe('WooCommerce barcodes (global_unique_id)', () => {
  const one = (product: Record<string, unknown>) =>
    readPage(
      'woocommerce',
      JSON.stringify([
        {
          id: 201,
          name: 'Oud Mood',
          brands: [{ name: 'Arabian Oud' }],
          prices: { price: '25000', regular_price: '25000', currency_code: 'SAR', currency_minor_unit: 2 },
          is_in_stock: true,
          is_purchasable: true,
          ...product,
        },
      ]),
      url,
      source,
    ).rows;
  const sizes = {
    attributes: [
      {
        name: 'Size',
        has_variations: true,
        terms: [
          { name: '50 ml', slug: '50-ml' },
          { name: '100 ml', slug: '100-ml' },
        ],
      },
    ],
    prices: {
      price: '25000',
      regular_price: '25000',
      currency_minor_unit: 2,
      price_range: { min_amount: '25000', max_amount: '42000' },
    },
  };

  it("reads a simple product's global_unique_id as its row's and its one size's", () => {
    const [row] = one({ global_unique_id: ' 6291106065107 ' });
    expect(row).toMatchObject({ barcode: '6291106065107', sizes: [{ label: 'one size', barcode: '6291106065107' }] });
    for (const none of [undefined, '', null]) {
      const [plain] = one({ global_unique_id: none });
      expect(plain).toBeDefined();
      expect(plain).not.toHaveProperty('barcode');
      expect(plain?.sizes[0]).not.toHaveProperty('barcode');
    }
  });

  it("reads each variation's global_unique_id as its size's; the product's, else the default size's, as the row's", () => {
    const variations = [
      { id: 2011, attributes: [{ name: 'Size', value: '50-ml' }], global_unique_id: '6291106065114' },
      { id: 2012, attributes: [{ name: 'Size', value: '100-ml' }] },
    ];
    const [row] = one({ ...sizes, variations });
    expect(row?.sizes.map((z) => [z.label, z.price, z.barcode])).toEqual([
      ['50 ml', 250, '6291106065114'],
      ['100 ml', 420, undefined],
    ]);
    expect(row?.sizes[1]).not.toHaveProperty('barcode');
    expect(row?.barcode).toBe('6291106065114');
    expect(one({ ...sizes, variations, global_unique_id: '6291106065107' })[0]?.barcode).toBe('6291106065107');
    // one price for all sizes: read the same
    const [flat] = one({ ...sizes, prices: { price: '25000', currency_minor_unit: 2 }, variations });
    expect(flat?.sizes.map((z) => z.barcode)).toEqual(['6291106065114', undefined]);
  });

  it("the Store API's answer, which names no global_unique_id, gives no barcode", () => {
    for (const r of readPage('woocommerce', body, url, source).rows) {
      expect(r).not.toHaveProperty('barcode');
      for (const z of r.sizes) expect(z).not.toHaveProperty('barcode');
    }
  });
});

describe('where the Store API is', () => {
  it('keeps a WordPress in a folder, and cuts an address already into its REST API', () => {
    expect(wordpressBase('https://shop.example')).toBe('https://shop.example');
    expect(wordpressBase('shop.example/store/')).toBe('https://shop.example/store');
    expect(wordpressBase('https://shop.example/store/wp-json/wc/store/v1/products?page=2')).toBe(
      'https://shop.example/store',
    );
  });
});
