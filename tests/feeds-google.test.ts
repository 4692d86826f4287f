import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { availableOf, moneyOf, saleRunning } from '../feeds/google.ts';
import { readPage } from '../feeds/index.ts';
import type { FeedRow, FeedSource } from '../feeds/types.ts';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', 'feeds', name), 'utf8');
const byId = (rows: FeedRow[]) => new Map(rows.map((r) => [r.merchant_product_id, r]));
const source: FeedSource = { kind: 'google', url: 'https://perfumes.example/feed.xml' };

describe('Google Merchant Center RSS 2.0', () => {
  const page = readPage('google', fixture('google-feed.rss.xml'), source.url, source);
  const rows = byId(page.rows);

  it('one feed is one page', () => {
    expect(page.next).toBeNull();
  });

  it('groups items by item_group_id: sizes of one concentration are one row, another concentration its own', () => {
    expect(rows.get('SAUV:edp')).toEqual({
      merchant_product_id: 'SAUV:edp',
      name: 'Sauvage Eau de Parfum',
      house: 'Dior',
      price: 650,
      sale_price: null,
      currency: 'SAR',
      available: true,
      sizes: [
        { label: '100 ml', ml: 100, price: 650, sale_price: null, available: true },
        { label: '60 ml', ml: 60, price: 520, sale_price: 470, available: false },
      ],
      image_url: 'https://perfumes.example/images/sauvage-edp.jpg',
      product_url: 'https://perfumes.example/products/sauvage-edp?size=100',
      description: 'Fresh and spicy: bergamot, pepper, ambroxan.',
      categories: ['Fragrance > Men', 'Health & Beauty > Personal Care > Cosmetics > Perfume & Cologne'],
    });
    // preorder can be bought
    expect(rows.get('SAUV:edt')).toMatchObject({ name: 'Sauvage Eau de Toilette', price: 560, available: true });
  });

  it('an item without a group is a product of its own; plain RSS elements and entities are read', () => {
    expect(rows.get('MFK-BR540')).toMatchObject({
      name: 'Baccarat Rouge 540 Eau de Parfum 70ml',
      house: 'Maison Francis Kurkdjian',
      price: 1250,
      sale_price: 1100,
      available: true,
      product_url: 'https://perfumes.example/products/br540',
      description: 'Saffron, jasmine, amberwood & fir resin.',
    });
    expect(rows.get('MFK-BR540')?.sizes[0]?.ml).toBe(70);
    expect(rows.get('DG-ONE')).toMatchObject({ name: 'Dolce & Gabbana The One EDP 100ml', house: 'Dolce & Gabbana' });
  });

  it('rejects items without an id, with why; one without a brand is read with no house', () => {
    expect(page.rejected).toEqual([{ reason: 'the item has no g:id' }]);
    // the house is read from the title when the product is matched, as a placeholder brand's is
    expect(rows.get('NO-BRAND-1')).toMatchObject({ name: 'Mystery Oud 50ml', house: '', price: 99 });
  });
});

describe('Google Merchant Center Atom', () => {
  const page = readPage('google', fixture('google-feed.atom.xml'), 'https://perfumes.example/feed.atom', source);
  const rows = byId(page.rows);

  it('reads entries, link hrefs and summaries; a tester of the group is its own row', () => {
    expect(rows.get('LV-IMAG:edp')).toMatchObject({
      name: 'Imagination Eau de Parfum',
      house: 'Louis Vuitton',
      price: 1190,
      currency: 'AED',
      available: true,
      product_url: 'https://perfumes.example/imagination?v=100',
      description: 'Citrus, black tea, ambroxan.',
    });
    expect(rows.get('LV-IMAG:edp')?.sizes.map((s) => [s.ml, s.price, s.available])).toEqual([
      [100, 1190, true],
      [200, 1790, false],
    ]);
    expect(rows.get('LV-IMAG:edp:tester')).toMatchObject({
      name: 'Imagination Eau de Parfum Tester',
      price: 990,
      available: false,
    });
    expect(page.rejected).toEqual([]);
  });
});

describe('Google Merchant Center TSV, as a Salla or Zid store exports it', () => {
  const page = readPage('google', fixture('google-feed-salla.tsv'), 'https://salla-shop.example/feed.tsv', source);
  const rows = byId(page.rows);

  it('reads the header names without g:, Arabic titles and Arabic-Indic sizes', () => {
    expect(rows.get('SL-KH')).toMatchObject({
      name: 'عطر خمرة من لطافة',
      house: 'لطافة',
      price: 180,
      sale_price: 150,
      currency: 'SAR',
      available: true,
      product_url: 'https://salla-shop.example/ar/khamrah/p100',
      description: 'قرفة وتمر وفانيليا',
      categories: ['عطور'],
    });
    expect(rows.get('SL-KH')?.sizes.map((s) => [s.label, s.ml, s.available])).toEqual([
      ['١٠٠ مل', 100, true],
      ['٣٠ مل', 30, false],
    ]);
    expect(rows.get('SL-OUD')).toMatchObject({ name: 'دهن عود كمبودي ٣ مل', price: 350 });
    expect(page.rejected).toEqual([]);
    expect(rows.get('SL-NOBRAND')).toMatchObject({ name: 'عطر بدون ماركة', house: '', price: 50 });
  });

  it('takes g: in the header row too', () => {
    const tsv = 'g:id\tg:title\tg:brand\tg:price\tg:availability\nA1\tOud 100ml\tAjmal\t99 SAR\tout_of_stock\n';
    expect(readPage('google', tsv, 'https://x.example/f.tsv', source).rows[0]).toMatchObject({
      merchant_product_id: 'A1',
      house: 'Ajmal',
      price: 99,
      available: false,
    });
  });
});

describe('Google Merchant Center barcodes (g:gtin)', () => {
  it("reads each item's g:gtin as its size's barcode; a group's row takes its default size's", () => {
    const item = (id: string, size: string, gtin: string | null, availability = 'in_stock') =>
      `<item><g:id>${id}</g:id><g:item_group_id>G1</g:item_group_id><g:title>Khamrah EDP ${size}</g:title>` +
      `<g:brand>Lattafa</g:brand><g:price>${size === '100ml' ? 250 : 160} SAR</g:price><g:size>${size}</g:size>` +
      `<g:availability>${availability}</g:availability>${gtin === null ? '' : `<g:gtin>${gtin}</g:gtin>`}</item>`;
    const rss = `<rss xmlns:g="http://base.google.com/ns/1.0"><channel>${[
      item('K100', '100ml', ' 6291108730508 ', 'out_of_stock'),
      item('K50', '50ml', '06291108730515'),
      item('K30', '30ml', null),
    ].join('')}</channel></rss>`;
    const [row, ...more] = readPage('google', rss, 'https://perfumes.example/feed.xml', source).rows;
    expect(more).toEqual([]);
    // the 100ml is out of stock: the row's price and barcode are the 50ml's (its leading zero kept)
    expect(row).toMatchObject({ merchant_product_id: 'G1', price: 160, barcode: '06291108730515' });
    expect(row?.sizes.map((z) => [z.label, z.barcode])).toEqual([
      ['100ml', '6291108730508'],
      ['50ml', '06291108730515'],
      ['30ml', undefined],
    ]);
    expect(row?.sizes[2]).not.toHaveProperty('barcode');
  });

  it('reads a gtin column in the tab-separated form; an item without one has no barcode', () => {
    const tsv =
      'id\ttitle\tbrand\tprice\tgtin\n' +
      'A1\tOud 100ml\tAjmal\t99 SAR\t6293708000019\n' +
      'A2\tAmber 50ml\tAjmal\t80 SAR\t\n';
    const rows = byId(readPage('google', tsv, 'https://x.example/f.tsv', source).rows);
    expect(rows.get('A1')).toMatchObject({ barcode: '6293708000019', sizes: [{ barcode: '6293708000019' }] });
    expect(rows.get('A2')).toBeDefined();
    expect(rows.get('A2')).not.toHaveProperty('barcode');
    expect(rows.get('A2')?.sizes[0]).not.toHaveProperty('barcode');
    const prefixed = 'g:id\tg:title\tg:price\tg:gtin\nB1\tOud 100ml\t99 SAR\t6293708000026\n';
    expect(readPage('google', prefixed, 'https://x.example/f.tsv', source).rows[0]?.barcode).toBe('6293708000026');
  });

  it('the fixtures, which name no gtin, give rows without barcodes', () => {
    for (const name of ['google-feed.rss.xml', 'google-feed.atom.xml', 'google-feed-salla.tsv'])
      for (const r of readPage('google', fixture(name), 'https://perfumes.example/feed.xml', source).rows) {
        expect(r, name).not.toHaveProperty('barcode');
        for (const z of r.sizes) expect(z, name).not.toHaveProperty('barcode');
      }
  });
});

describe('prices and availability', () => {
  it('reads "150.00 SAR", "SAR 150", "1,250.00 AED"', () => {
    expect(moneyOf('150.00 SAR')).toEqual({ amount: 150, currency: 'SAR' });
    expect(moneyOf('SAR 150')).toEqual({ amount: 150, currency: 'SAR' });
    expect(moneyOf('1,250.00 AED')).toEqual({ amount: 1250, currency: 'AED' });
    expect(moneyOf('free')).toEqual({ amount: null, currency: null });
  });

  it('in_stock, preorder and backorder can be bought; out_of_stock cannot', () => {
    expect(['in_stock', 'in stock', 'preorder', 'backorder', undefined].map((a) => availableOf(a ?? null))).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['out_of_stock', 'out of stock', 'discontinued'].map(availableOf)).toEqual([false, false, false]);
  });

  it("reads a sale's dates: the sale price only while the sale runs", () => {
    const now = Date.parse('2026-11-27T12:00:00Z');
    expect(saleRunning('2026-11-20T00:00+0300/2026-11-30T23:59+0300', now)).toBe(true);
    expect(saleRunning('2026-11-01T00:00+0300/2026-11-26T23:59+0300', now)).toBe(false);
    expect(saleRunning('2026-12-01T00:00Z/2026-12-31T00:00Z', now)).toBe(false);
    expect(saleRunning('2026-11-27T12:00:00Z/2026-11-27T12:00:01Z', now)).toBe(true);
    // a window that cannot be read: the shop's sale price stands
    for (const odd of [null, '', 'soon', '2026-11-20', 'a/b', '2026-11-20/2026-11-30/2026-12-01'])
      expect(saleRunning(odd, now), String(odd)).toBe(true);

    const item = (id: string, window: string | null) =>
      `<item><g:id>${id}</g:id><g:title>Hawas EDP 100ml</g:title><g:brand>Rasasi</g:brand><g:price>300 SAR</g:price><g:sale_price>240 SAR</g:sale_price>${window ? `<g:sale_price_effective_date>${window}</g:sale_price_effective_date>` : ''}</item>`;
    const feed = (...items: string[]) =>
      `<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0"><channel>${items.join('')}</channel></rss>`;
    const page = readPage(
      'google',
      feed(
        item('ended', '2026-11-01T00:00+0300/2026-11-26T23:59+0300'),
        item('running', '2026-11-20T00:00+0300/2026-11-30T23:59+0300'),
        item('later', '2026-12-01T00:00+0300/2026-12-31T23:59+0300'),
      ),
      source.url,
      source,
      undefined,
      now,
    );
    expect(page.rows.map((r) => [r.merchant_product_id, r.price, r.sale_price, r.sizes[0]?.sale_price])).toEqual([
      ['ended', 300, null, null],
      ['running', 300, 240, 240],
      ['later', 300, null, null],
    ]);
    // read later, the same document says otherwise: it is never answered by a conditional request
    expect(page.timed).toBe(true);
    expect(readPage('google', feed(item('plain', null)), source.url, source, undefined, now).timed).toBeUndefined();
  });
});
