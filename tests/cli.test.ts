import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../cli/admin.ts';
import type { Database } from '../db/client.ts';
import { AppError } from '../lib/errors.ts';
import { createTestDatabase, tempFile, testConfig } from './helper.ts';

let database: Database;
let drop: () => Promise<void>;
beforeAll(async () => {
  ({ database, drop } = await createTestDatabase());
  await database.migrate();
});
afterAll(async () => {
  await database.close();
  await drop();
});

async function cli(...argv: string[]) {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  try {
    const code = await run(argv, testConfig({ REDIS_URL: undefined }), database);
    return { code, out };
  } finally {
    spy.mockRestore();
  }
}

describe('admin CLI', () => {
  it('creates and lists merchants as a readable table', async () => {
    const created = await cli('merchants:create', '--name', 'Musk Corner', '--slug', 'musk-corner');
    expect(created.code).toBe(0);
    expect(created.out).toMatch(/slug\s+.*\n-+/);
    const list = await cli('merchants:list');
    expect(list.out).toMatch(/musk-corner\s+Musk Corner/);
  });

  it('creates a key, prints it once, lists it without the plaintext, and revokes it', async () => {
    await cli('merchants:create', '--name', 'Amber', '--slug', 'amber-cli');
    const created = await cli(
      'keys:create',
      'amber-cli',
      '--mode',
      'live',
      '--origin',
      'https://amber.example',
      '--json',
    );
    const key = JSON.parse(created.out);
    expect(key.key).toMatch(/^pk_live_/);
    expect(key.allowed_origins).toEqual(['https://amber.example']);
    const list = await cli('keys:list', 'amber-cli');
    expect(list.out).toContain(key.prefix);
    expect(list.out).not.toContain(key.key);
    const revoked = await cli('keys:revoke', key.id, '--json');
    expect(JSON.parse(revoked.out).revoked).toBe(true);
    const origins = await cli('keys:origins', key.id, '--origin', 'https://*.amber.example', '--json');
    expect(JSON.parse(origins.out).allowed_origins).toEqual(['https://*.amber.example']);
  });

  it('learns barcodes from two shops synced from the command line, lists them, and sets what a shop teaches', async () => {
    // the check digit of 6291150000017 holds
    const shelf = (barcode: string) =>
      tempFile(
        `bc-${barcode}.json`,
        JSON.stringify([{ merchant_product_id: 'k1', name: 'Lattafa Khamrah EDP 100ml', barcode }]),
      );
    for (const slug of ['cli-bc-1', 'cli-bc-2']) {
      await cli('merchants:create', '--name', slug, '--slug', slug);
      await cli('products:sync', slug, shelf('6291150000017'));
    }
    const keys = JSON.parse((await cli('barcodes:list', '--status', 'key', '--json')).out);
    expect(keys.barcodes).toEqual([
      expect.objectContaining({
        barcode: '06291150000017',
        perfume: expect.objectContaining({ sillage_perfume_id: 'lattafa-khamrah-edp' }),
        shops: 2,
      }),
    ]);
    expect((await cli('barcodes:list')).out).toMatch(/0 of 0/);
    const off = await cli('merchants:learning', 'cli-bc-2', '--teaches', 'off', '--json');
    expect(JSON.parse(off.out)).toMatchObject({ slug: 'cli-bc-2', teaches: false, learns: true });
    expect(JSON.parse((await cli('barcodes:list', '--status', 'key', '--json')).out).total).toBe(0);
    expect((await cli('merchants:learning', 'cli-bc-2')).out).toMatch(/cli-bc-2\s+false\s+true/);
    await expect(cli('merchants:learning', 'cli-bc-2', '--learns', 'maybe')).rejects.toThrow(/on or off/);
    await expect(cli('barcodes:list', '--status', 'all')).rejects.toThrow(/conflict or key/);
  });

  it("sets a merchant's own answer for a product, lists what answers propose, and reviews it (docs/learning.md)", async () => {
    const file = tempFile(
      'answer-shelf.json',
      JSON.stringify([{ merchant_product_id: 'ameer', name: 'Lattafa Al Noble Ameer EDP 100ml', price: 150 }]),
    );
    for (const slug of ['cli-ans-1', 'cli-ans-2']) {
      await cli('merchants:create', '--name', slug, '--slug', slug);
      await cli('products:sync', slug, file);
    }
    const one = await cli(
      'products:answer',
      'cli-ans-1',
      'ameer',
      '--note',
      'oud',
      '--note',
      'زعفران',
      '--accord',
      'amber',
    );
    expect(one.out).toMatch(/ameer\s.*matched\s+described/);
    await cli('products:answer', 'cli-ans-2', 'ameer', '--note', 'Oud', '--note', 'saffron');
    const inForce = JSON.parse((await cli('proposals:list', '--status', 'in_force', '--json')).out);
    expect(inForce.proposals).toEqual([
      expect.objectContaining({
        sillage_perfume_id: 'lattafa-al-noble-ameer-edp',
        shops: 2,
        facts: [
          expect.objectContaining({ item: 'accord:amber', shops: 1, state: 'waiting' }),
          expect.objectContaining({ item: 'note:oud', shops: 2, state: 'in_force' }),
          expect.objectContaining({ item: 'note:saffron', shops: 2, state: 'in_force' }),
        ],
      }),
    ]);
    const reviewed = await cli(
      'proposals:review',
      'lattafa-al-noble-ameer-edp',
      'reject',
      '--item',
      'note:saffron',
      '--why',
      'not in the house notes',
    );
    expect(reviewed.out).toMatch(/note:saffron\s+2\s+rejected\s+false/);
    expect((await cli('proposals:list', '--status', 'rejected')).out).toMatch(
      /lattafa-al-noble-ameer-edp\s+note:saffron/,
    );
    await expect(cli('proposals:review', 'lattafa-al-noble-ameer-edp', 'maybe', '--why', 'x')).rejects.toThrow(
      /approve or reject/,
    );
    await expect(cli('proposals:review', 'lattafa-al-noble-ameer-edp', 'approve')).rejects.toThrow(/--why/);
    await expect(cli('proposals:list', '--status', 'open')).rejects.toThrow(/--status must be one of/);
    await expect(cli('products:answer', 'cli-ans-1', 'ameer', '--note', 'dragon')).rejects.toThrow(/not a note/);
    const cleared = JSON.parse((await cli('products:answer', 'cli-ans-1', 'ameer', '--json')).out);
    expect(cleared).toMatchObject({ answer: null, quality: null });
  });

  it('lists the new perfumes two shops propose and approves one: a catalog record, every shelf matched to it', async () => {
    for (const slug of ['cli-id-1', 'cli-id-2']) {
      await cli('merchants:create', '--name', slug, '--slug', slug);
      const file = tempFile(
        `${slug}.json`,
        JSON.stringify([
          { merchant_product_id: 'n', name: 'Rasasi Nafahat Al Sahra EDP', product_url: `https://${slug}.example/n` },
        ]),
      );
      await cli('products:sync', slug, file);
    }
    const listed = JSON.parse((await cli('identities:list', '--json')).out);
    expect(listed.identities).toEqual([
      expect.objectContaining({ house: 'Rasasi', name: 'Nafahat Al Sahra', concentration: 'edp', shops: 2 }),
    ]);
    const id = listed.identities[0].id as string;
    await expect(cli('identities:review', id, 'approve', '--why', 'two shops')).rejects.toThrow(/no gender/);
    const approved = await cli('identities:review', id, 'approve', '--why', 'two shops', '--gender', 'unisex');
    expect(approved.out).toMatch(/Nafahat Al Sahra\s+approved\s+rasasi-nafahat-al-sahra-edp/);
    expect((await cli('products:list', 'cli-id-2')).out).toMatch(/rasasi-nafahat-al-sahra-edp/);
    expect((await cli('identities:list')).out).toMatch(/0 of 0/);
    await expect(cli('identities:list', '--status', 'open')).rejects.toThrow(/--status must be one of/);
    await expect(cli('identities:review', id, 'maybe', '--why', 'x')).rejects.toThrow(/approve or reject/);
  });

  it('erases a merchant on the database at once, with its slug as --confirm; a wrong one erases nothing', async () => {
    await cli('merchants:create', '--name', 'Gone', '--slug', 'cli-gone');
    await cli('keys:create', 'cli-gone', '--mode', 'test');
    await cli(
      'products:sync',
      'cli-gone',
      tempFile('gone.json', JSON.stringify([{ merchant_product_id: 'g1', name: 'Item 1' }])),
    );
    await expect(cli('merchants:erase', 'cli-gone')).rejects.toThrow(/missing --confirm <slug>/);
    await expect(cli('merchants:erase', 'cli-gone', '--confirm', 'cli-gon')).rejects.toThrow(/its slug as confirm/);
    expect((await cli('merchants:list')).out).toMatch(/cli-gone/);
    const erased = await cli('merchants:erase', 'cli-gone', '--confirm', 'cli-gone', '--json');
    expect(erased.code).toBe(0);
    expect(JSON.parse(erased.out)).toMatchObject({ merchant_id: expect.any(String), status: 'erased' });
    expect((await cli('merchants:list')).out).not.toMatch(/cli-gone/);
    await expect(cli('keys:list', 'cli-gone')).rejects.toThrow(/No merchant/);
    // the slug is free again: nothing of it is left
    expect((await cli('merchants:create', '--name', 'Gone again', '--slug', 'cli-gone')).code).toBe(0);
    expect((await cli('keys:list', 'cli-gone', '--json')).out).toBe('[]\n');
    // feeds:pull keeps its --confirm flag
    await expect(cli('feeds:pull', 'no-such-feed', '--confirm')).rejects.toThrow(/No feed source/);
  });

  it('explains usage problems instead of failing obscurely', async () => {
    await expect(cli('keys:create', 'nobody', '--mode', 'live')).rejects.toThrow(/No merchant/);
    await expect(cli('keys:create', 'amber-cli', '--mode', 'prod')).rejects.toThrow(AppError);
    await expect(cli('merchants:create', '--name', 'x')).rejects.toThrow(/missing --slug/);
    await expect(cli('frobnicate')).rejects.toThrow(/unknown command/);
  });

  it('migrate is idempotent', async () => {
    expect((await cli('migrate')).code).toBe(0);
    expect((await cli('migrate')).code).toBe(0);
  });
});

describe('admin CLI: catalog import', () => {
  it('imports a CSV, prints a summary with each rejected row, and exits 2 when rows were rejected', async () => {
    const file = new URL('./fixtures/catalog-import.csv', import.meta.url).pathname;
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const { code, out } = await cli('catalog:import', file);
      expect(code).toBe(2);
      expect(out).toMatch(/read 8 rows: 3 added, 0 updated, 5 rejected; new houses: Test House/);
      expect(out).toMatch(/row 3 \(test-house-bad-accord-edp\): .*unknown accord "unicorn"/);
      expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toMatch(/importing \[#+\] 100%/);
    } finally {
      stderr.mockRestore();
    }
  });
});

describe('admin CLI: products', () => {
  it('syncs a CSV feed, lists unmatched products, pins one and unpins it', async () => {
    await cli('merchants:create', '--name', 'CSV Shop', '--slug', 'csv-shop');
    const file = tempFile(
      'feed.csv',
      'merchant_product_id,name,house,price,currency,image_url,product_url,accords,top_notes,heart_notes,base_notes,description\n' +
        'a1,Khamrah EDP 100ml,Lattafa,145,SAR,,https://csv.example/a1,,,,,\n' +
        'a2,Local Rose Oil,Local House,60,,,,,,taif rose,,\n' +
        'a3,Mystery,Local House,oops,,,,,,,,\n' +
        'a4,Night Blend,Local House,90,,,,,,,,"Notes: oud, saffron, rose"\n',
    );
    const sync = await cli('products:sync', 'csv-shop', file, '--json');
    expect(sync.code).toBe(2);
    expect(JSON.parse(sync.out)).toMatchObject({ received: 4, upserted: 3, matched: 1, partial: 2, rejected: 1 });
    const list = await cli('products:list', 'csv-shop', '--status', 'partial');
    expect(list.out).toMatch(/a2\s+Local Rose Oil/);
    const pin = await cli('products:pin', 'csv-shop', 'a2', 'amouage-lyric-woman-edp', '--json');
    expect(JSON.parse(pin.out)).toMatchObject({ pinned: true, sillage_perfume_id: 'amouage-lyric-woman-edp' });
    const unpin = await cli('products:unpin', 'csv-shop', 'a2', '--json');
    expect(JSON.parse(unpin.out)).toMatchObject({ pinned: false, status: 'partial' });
    const rematch = await cli('products:rematch', 'csv-shop', '--json');
    expect(JSON.parse(rematch.out)).toMatchObject({ checked: 3, changed: 0, matched: 1, partial: 2 });
  });
});

describe('admin CLI: analytics and leads', () => {
  it('prints the analytics tables, re-attributes, exports, erases and purges leads', async () => {
    await cli('merchants:create', '--name', 'Stats Shop', '--slug', 'stats-shop');
    const a = await cli('analytics', 'stats-shop');
    expect(a.code).toBe(0);
    expect(a.out).toMatch(/Stats Shop \(stats-shop\), live traffic/);
    expect(a.out).toMatch(/step\s+count/);
    expect(a.out).toMatch(/quiz_completed\s+0/);
    const json = JSON.parse((await cli('analytics', 'stats-shop', '--test', '--json')).out);
    expect(json).toMatchObject({ traffic: 'test', orders: { total: 0, attributed: 0 } });
    expect((await cli('analytics:reattribute', 'stats-shop')).out).toMatch(/re-attributed with a 30-day window/);
    expect((await cli('leads:export', 'stats-shop', '--csv')).out).toBe(
      'email,phone,consent_at,consent_version,session_id,locale,test,created_at,pick_ids,pick_names\n',
    );
    expect((await cli('leads:erase', 'stats-shop', '--email', 'x@example.com')).out).toBe('0 lead(s) erased\n');
    expect((await cli('leads:purge')).out).toMatch(/older than 365 days purged/);
    await expect(cli('analytics', 'stats-shop', '--from', 'yesterday')).rejects.toThrow(
      /--from and --to must be dates/,
    );
  });
});
