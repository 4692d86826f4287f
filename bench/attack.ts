/**
 * Worst-case cost per widget operation: npm run bench -- attack
 * Each operation's slowest request a client can legally build (maximum rows,
 * maximum lengths, adversarial text, every text unique so no cache helps)
 * beside its typical request, in process (fastify.inject, in-memory PGlite,
 * a shop of 1,000 synced products), median of 7 runs after 2 to warm up;
 * inline catalogs are matched on the service's worker thread, each run after
 * the worker's recent work has decayed (its CPU-share wait left out).
 * Goals (the attack-run issue): the worst at most 10× the typical, and the
 * largest inline score at most 300 ms.
 */
import { randomUUID } from 'node:crypto';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { INLINE_WINDOW_MS } from '../plugins/app/inline-matcher.ts';
import { createKey } from '../services/keys.ts';
import { syncProducts } from '../services/products.ts';
import { benchShop, labelledListingFeed } from './databases.ts';
import { median } from './stats.ts';

const CONSONANTS = 'bcdfghjklmnpqrstvwxz';
let seed = 1;
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const word = (n: number) => Array.from({ length: n }, () => CONSONANTS[Math.floor(rand() * 20)]).join('');

export async function runAttackBench(log: (s: string) => void = console.log) {
  const config = loadConfig({
    DATABASE_URL: 'memory:',
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef',
    LEAD_ENCRYPTION_KEY: 'ab'.repeat(32),
    ADDRESS_RATE_LIMIT: '0',
  });
  const app = await buildApp({ config });
  await app.ready();
  const { snapshot, merchant } = await benchShop(app.database);
  await syncProducts(
    app.db,
    snapshot,
    merchant.id,
    labelledListingFeed(1000, () => ({})),
  );
  await app.merchantProducts.get(merchant.id);
  const key = (await createKey(app.db, merchant.id, { mode: 'live', allowedOrigins: [] })).key;
  let address = 0;
  const post = (url: string, payload: unknown) =>
    app.inject({
      method: 'POST',
      url,
      payload: payload as object,
      // a new address each time: the per-key quotas count per address
      remoteAddress: `10.${(++address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`,
    });

  const quiz = { families: ['oud', 'amber'], accord_ratings: { oud: 'love', citrus: 'avoid' }, season: 'winter' };
  /** a score of an inline catalog of `n` rows, row i named, housed and described as `row(i)` says */
  const inline = (n: number, row: (i: number) => { name: string; house: string; description?: string }) => () => ({
    api_key: key,
    quiz,
    catalog_mode: 'inline',
    inline_catalog: Array.from({ length: n }, (_, i) => ({ merchant_product_id: `p${i}`, price: 100, ...row(i) })),
  });
  const listings = labelledListingFeed(20, () => ({}));
  const cases: Record<string, [string, () => unknown]> = {
    'score, synced (typical)': ['/api/widget/score', () => ({ api_key: key, quiz })],
    'score, inline 20 real rows (typical inline)': [
      '/api/widget/score',
      inline(20, (i) => ({ name: `${listings[i]?.name} ${word(3)}`, house: listings[i]?.house ?? '' })),
    ],
    'score, inline 200 rows of 24 made-up words, house Lattafa': [
      '/api/widget/score',
      inline(200, () => ({
        name: Array.from({ length: 24 }, () => word(11))
          .join(' ')
          .slice(0, 300),
        house: 'Lattafa',
      })),
    ],
    'score, inline 200 rows of 300 letters, no house': [
      '/api/widget/score',
      inline(200, () => ({
        name: `${word(4)}sauvagekhamrahaventusoudwoodbaccaratrouge`.repeat(8).slice(0, 300),
        house: 'AS SHOWN',
      })),
    ],
    'score, inline 200 rows, descriptions at their cap': [
      '/api/widget/score',
      inline(200, () => ({
        name: `Local Blend ${word(6)}`,
        house: 'Local Atelier',
        description: `Notes: ${Array.from({ length: 150 }, () => `${word(7)} oud rose`).join(', ')}`.slice(0, 1000),
      })),
    ],
    'lookup (typical)': ['/api/widget/lookup', () => ({ api_key: key, query: 'sauvage' })],
    'lookup, 200 characters of perfume words': [
      '/api/widget/lookup',
      () => ({
        api_key: key,
        query: `${word(3)} ${'khamrah sauvage aventus oud wood rouge '.repeat(6)}`.slice(0, 200),
      }),
    ],
    'lookup, 200 letters run together': [
      '/api/widget/lookup',
      () => ({ api_key: key, query: `${word(4)}${'sauvagekhamrah'.repeat(15)}`.slice(0, 200) }),
    ],
    'event (typical)': ['/api/widget/event', () => ({ api_key: key, type: 'widget_loaded', event_id: randomUUID() })],
    'event, 50 purchases of 200 items (64 KB)': [
      '/api/widget/event',
      () => ({
        api_key: key,
        events: Array.from({ length: 50 }, () => ({
          type: 'purchase_completed',
          order_id: randomUUID(),
          total: 10,
          currency: 'SAR',
          items: Array.from({ length: 5 }, (_, i) => ({ merchant_product_id: `p${i}`, quantity: 1, price: 2 })),
        })),
      }),
    ],
    'verify (typical)': ['/api/widget/verify', () => ({ api_key: key })],
    'verify, a junk key each time': ['/api/widget/verify', () => ({ api_key: `pk_live_${word(40)}` })],
  };
  log('| request | status | median ms | of its typical |');
  log('|---|---|---|---|');
  const results: Record<string, { status: number; medianMs: number }> = {};
  const typical: Record<string, number> = {};
  for (const [name, [url, body]] of Object.entries(cases)) {
    const times: number[] = [];
    let status = 0;
    for (let run = 0; run < 9; run++) {
      // inline catalogs: the worker's share of a core is kept under INLINE_CPU_SHARE by making
      // back-to-back matches wait (plugins/app/inline-matcher.ts); that wait is queueing, not the
      // request's cost, so each run starts once the worker's recent work has decayed
      if (name.startsWith('score, inline')) await new Promise((r) => setTimeout(r, 1.5 * INLINE_WINDOW_MS));
      const payload = body();
      const t = performance.now();
      const res = await post(url, payload);
      if (run >= 2) times.push(performance.now() - t);
      status = res.statusCode;
    }
    const ms = median(times);
    const op = url.split('/').pop() as string;
    if (name.includes('(typical')) typical[name.includes('inline') ? 'inline' : op] ??= ms;
    const base = name.startsWith('score, inline') ? (typical.inline ?? typical.score) : typical[op];
    results[name] = { status, medianMs: ms };
    log(`| ${name} | ${status} | ${ms.toFixed(1)} | ${base ? `${(ms / base).toFixed(1)}×` : ''} |`);
  }
  await app.close();
  return results;
}
