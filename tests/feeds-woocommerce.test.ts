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

describe('where the Store API is', () => {
  it('keeps a WordPress in a folder, and cuts an address already into its REST API', () => {
    expect(wordpressBase('https://shop.example')).toBe('https://shop.example');
    expect(wordpressBase('shop.example/store/')).toBe('https://shop.example/store');
    expect(wordpressBase('https://shop.example/store/wp-json/wc/store/v1/products?page=2')).toBe(
      'https://shop.example/store',
    );
  });
});
