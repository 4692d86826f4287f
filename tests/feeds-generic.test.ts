import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mapColumns } from '../feeds/generic.ts';
import { readPage } from '../feeds/index.ts';
import type { FeedSource } from '../feeds/types.ts';
import { csvProduct, jsonProducts, PRODUCT_CSV_COLUMNS } from '../feeds/upload-format.ts';
import { readProductFeed } from '../services/product-feed.ts';

const csvBody = readFileSync(join(import.meta.dirname, 'fixtures', 'feeds', 'generic-products.csv'), 'utf8');
const mapping = {
  merchant_product_id: 'SKU',
  name: 'Product Title',
  house: 'Brand',
  price: 'Price (SAR)',
  sale_price: 'Offer price',
  available: 'Stock',
  image_url: 'Image',
  product_url: 'Page',
  top_notes: 'Top notes',
  description: 'Description',
};

describe('a CSV URL with a column mapping', () => {
  const source: FeedSource = { kind: 'csv', url: 'https://shop.example/feed.csv', mapping };
  const page = readPage('csv', csvBody, source.url, source);

  it('reads the mapped columns into rows', () => {
    expect(page.rows).toEqual([
      {
        merchant_product_id: 'GEN-1',
        name: 'Aventus',
        house: 'Creed',
        price: 1450,
        sale_price: 1300,
        currency: 'SAR',
        available: true,
        sizes: [{ label: 'one size', ml: null, price: 1450, sale_price: 1300, available: true }],
        image_url: 'https://shop.example/img/aventus.jpg',
        product_url: 'https://shop.example/aventus',
        description: 'Fruity chypre, birch and musk',
        categories: [],
        // the merchant's notes travel with the row, as an upload's do
        notes: { top: ['pineapple', 'bergamot'] },
      },
      expect.objectContaining({ merchant_product_id: 'GEN-2', available: false, price: 220, image_url: null }),
    ]);
    expect(page.next).toBeNull();
  });

  it('rejects rows without a name or with a price that is not a number', () => {
    expect(page.rejected).toEqual([
      { id: 'GEN-3', reason: 'the row has no name' },
      { id: 'GEN-4', reason: 'price is not a number ≥ 0' },
    ]);
  });

  it('a mapping written the other way round reads the same', () => {
    const reversed = Object.fromEntries(Object.entries(mapping).map(([a, b]) => [b, a]));
    expect(readPage('csv', csvBody, source.url, { ...source, mapping: reversed })).toEqual(page);
  });

  it('mapColumns renames only what the mapping names', () => {
    expect(mapColumns({ SKU: '1', name: 'x' }, { merchant_product_id: 'SKU' })).toEqual({
      SKU: '1',
      name: 'x',
      merchant_product_id: '1',
    });
    expect(mapColumns({ a: 1 }, undefined)).toEqual({ a: 1 });
  });
});

describe('a JSON URL', () => {
  const source: FeedSource = { kind: 'json', url: 'https://shop.example/feed.json', currency: 'AED' };

  it('reads the upload format, {products: [...]} or a list, with groups as variants', () => {
    const body = JSON.stringify({
      products: [
        { merchant_product_id: 11, name: 'Hawas 100ml', house: 'Rasasi', price: 230, group_id: 'H', size: '100 ml' },
        { merchant_product_id: 12, name: 'Hawas 50ml', house: 'Rasasi', price: 150, group_id: 'H', available: false },
        { merchant_product_id: 13, name: 'Hawas Tester', house: 'Rasasi', price: 120, group_id: 'H' },
        { id: 14, title: 'Other', brand: 'X' },
      ],
    });
    const page = readPage('json', body, source.url, source);
    expect(page.rows.map((r) => [r.merchant_product_id, r.name, r.price, r.currency, r.sizes.length])).toEqual([
      ['H', 'Hawas', 230, 'AED', 2],
      ['H:tester', 'Hawas Tester', 120, 'AED', 1],
    ]);
    expect(page.rejected).toEqual([{ reason: 'the row has no merchant_product_id' }]);
    const mapped = readPage('json', body, source.url, {
      ...source,
      mapping: { merchant_product_id: 'id', name: 'title', house: 'brand' },
    });
    expect(mapped.rows.map((r) => r.merchant_product_id)).toContain('14');
  });

  it("passes the upload format's accords and notes on with the product, once per group", () => {
    const notes = { top: ['saffron'], heart: ['rose'], base: ['oud', 'amber'] };
    const body = JSON.stringify([
      { merchant_product_id: 'O1', name: 'Oud 100ml', house: 'Ajmal', group_id: 'O', accords: ['oud'], notes },
      { merchant_product_id: 'O2', name: 'Oud 50ml', house: 'Ajmal', group_id: 'O', accords: ['oud'], notes },
      { merchant_product_id: 'P', name: 'Plain', house: 'Ajmal' },
    ]);
    const rows = readPage('json', body, source.url, source).rows;
    expect(rows.map((r) => [r.merchant_product_id, r.accords, r.notes])).toEqual([
      ['O', ['oud'], notes],
      ['P', undefined, undefined],
    ]);
  });

  it('reads a row without a house, or with an empty one, with no house: the matcher reads it from the name', () => {
    const body = JSON.stringify([
      { merchant_product_id: 'N1', name: 'Lattafa Khamrah 100ml', price: 120 },
      { merchant_product_id: 'N2', name: 'Hawas 100ml', house: '  ', price: 230 },
    ]);
    const page = readPage('json', body, source.url, source);
    expect(page.rows.map((r) => [r.merchant_product_id, r.name, r.house])).toEqual([
      ['N1', 'Lattafa Khamrah 100ml', ''],
      ['N2', 'Hawas 100ml', ''],
    ]);
    expect(page.rejected).toEqual([]);
  });

  it('refuses a file that is not a product list', () => {
    expect(readPage('json', '{"items": []}', source.url, source).rejected[0]?.reason).toMatch(/neither a JSON list/);
    expect(readPage('json', 'not json', source.url, source).rejected).toEqual([{ reason: 'the page is not JSON' }]);
  });
});

describe('barcodes in a CSV or JSON feed', () => {
  const csvSource: FeedSource = { kind: 'csv', url: 'https://shop.example/feed.csv' };
  const jsonSource: FeedSource = { kind: 'json', url: 'https://shop.example/feed.json' };

  it("reads a row's barcode as its size's; a group's row takes its default size's; a row without one has none", () => {
    const csv =
      'merchant_product_id,name,house,price,size,group_id,available,barcode\n' +
      'K1,Khamrah 100ml,Lattafa,250,100 ml,K,no, 6291108730508 \n' +
      'K2,Khamrah 50ml,Lattafa,160,50 ml,K,,06291108730515\n' +
      'K3,Khamrah 30ml,Lattafa,110,30 ml,K,,\n' +
      'A1,Asad 100ml,Lattafa,90,,,,\n';
    const page = readPage('csv', csv, csvSource.url, csvSource);
    expect(page.rejected).toEqual([]);
    const [khamrah, asad] = page.rows;
    // the 100 ml is sold out: the row's price and barcode are the 50 ml's, its leading zero kept
    expect(khamrah).toMatchObject({ merchant_product_id: 'K', price: 160, barcode: '06291108730515' });
    expect(khamrah?.sizes.map((z) => [z.ml, z.barcode])).toEqual([
      [100, '6291108730508'],
      [50, '06291108730515'],
      [30, undefined],
    ]);
    expect(khamrah?.sizes[2]).not.toHaveProperty('barcode');
    expect(asad).toMatchObject({ merchant_product_id: 'A1' });
    expect(asad).not.toHaveProperty('barcode');
    expect(asad?.sizes[0]).not.toHaveProperty('barcode');
  });

  it('takes gtin, ean or upc when there is no barcode column, and a mapped column of another name', () => {
    const one = (header: string, value: string, source = csvSource) =>
      readPage(
        'csv',
        `merchant_product_id,name,house,price,${header}\nP1,Oud 100ml,Ajmal,99,${value}\n`,
        source.url,
        source,
      ).rows[0]?.barcode;
    expect(one('gtin', '6293708000019')).toBe('6293708000019');
    expect(one('ean', '6293708000019')).toBe('6293708000019');
    expect(one('upc', '012345678905')).toBe('012345678905');
    expect(one('EAN Code', '6293708000019', { ...csvSource, mapping: { barcode: 'EAN Code' } })).toBe('6293708000019');
    expect(one('EAN Code', '6293708000019')).toBeUndefined();
    // barcode first; an empty one gives way to an alias
    expect(one('barcode,gtin', '111,222')).toBe('111');
    expect(one('barcode,gtin', ',222')).toBe('222');
  });

  it('reads a JSON barcode given as text or as a number, and its aliases', () => {
    const body = JSON.stringify([
      { merchant_product_id: 'J1', name: 'Oud 100ml', house: 'Ajmal', barcode: 6293708000019 },
      { merchant_product_id: 'J2', name: 'Amber 100ml', house: 'Ajmal', ean: ' 6293708000026 ' },
      { merchant_product_id: 'J3', name: 'Musk 100ml', house: 'Ajmal', barcode: null },
    ]);
    const rows = readPage('json', body, jsonSource.url, jsonSource).rows;
    expect(rows.map((r) => [r.merchant_product_id, r.barcode, r.sizes[0]?.barcode])).toEqual([
      ['J1', '6293708000019', '6293708000019'],
      ['J2', '6293708000026', '6293708000026'],
      ['J3', undefined, undefined],
    ]);
    expect(rows[2]).not.toHaveProperty('barcode');
  });

  it('the upload CSV has a barcode column, its aliases read into it', () => {
    expect(PRODUCT_CSV_COLUMNS).toContain('barcode');
    expect(csvProduct({ merchant_product_id: '1', name: 'N', barcode: ' 6293708000019 ' })).toMatchObject({
      barcode: '6293708000019',
    });
    expect(csvProduct({ merchant_product_id: '1', name: 'N', upc: '012345678905' })).toMatchObject({
      barcode: '012345678905',
    });
    expect(csvProduct({ merchant_product_id: '1', name: 'N', barcode: '  ' })).not.toHaveProperty('barcode');
  });
});

describe('the upload format, shared with products:sync', () => {
  it('reads a CSV record and a JSON file as before', async () => {
    expect(csvProduct({ merchant_product_id: '1', name: 'N', house: 'H', price: '12,5', top_notes: 'a| b' })).toEqual({
      merchant_product_id: '1',
      name: 'N',
      house: 'H',
      price: 12.5,
      notes: { top: ['a', 'b'] },
    });
    expect(jsonProducts([1])).toEqual([1]);
    expect(jsonProducts({ products: [2] })).toEqual([2]);
    expect(jsonProducts({})).toBeNull();
    const rows = await readProductFeed(join(import.meta.dirname, 'fixtures', 'catalog-import.csv'));
    expect(Array.isArray(rows)).toBe(true);
  });
});
