/**
 * What shelves teach (docs/learning.md), measured: two shops list the same real perfumes their own
 * way (the labelled listings of tests/fixtures/listings, each perfume with its bottle's barcode), a
 * third lists them by barcode and a junk name only. How many of the third shop's products are
 * matched to the right perfume, how many wrong, how a barcode two shops put on different perfumes
 * is left; and what learning costs per synced product.
 */
import { createHash } from 'node:crypto';
import { inArray } from 'drizzle-orm';
import { loadBundledCatalog } from '../catalog/bundled.ts';
import type { Database } from '../db/client.ts';
import { gtinKey } from '../lib/gtin.ts';
import { learntProfiles, perfumes } from '../schema/index.ts';
import { loadSnapshot } from '../services/catalog.ts';
import { learnMerchant } from '../services/learning.ts';
import { createMerchant } from '../services/merchants.ts';
import { productView, syncProducts } from '../services/products.ts';
import { withCheck } from '../tests/gtin-fixture.ts';
import { loadLabelledListings } from '../tests/listing-fixture.ts';
import { resolveNote } from '../vocabulary/notes.ts';
import { startBenchServer } from './child.ts';
import { benchShop, onBenchDatabases } from './databases.ts';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** A made-up but valid EAN-13 (GS1 prefix 629) for a perfume id: the same for every shop. */
const barcodeOf = (id: string) =>
  withCheck(
    `629${(BigInt(`0x${createHash('sha256').update(id).digest('hex').slice(0, 12)}`) % 10n ** 9n).toString().padStart(9, '0')}`,
  );

/** Conflicts made: pairs of perfumes on which the two teaching shops put one barcode. */
const CONFLICTS = 20;

async function run(database: Database, log: (s: string) => void) {
  const { snapshot, merchant: a1 } = await benchShop(database);
  const shop = (slug: string) => createMerchant(database.db, { name: slug, slug: `${slug}-${a1.slug}` });
  const a2 = await shop('a2');
  const c = await shop('c');

  // full bottles of catalog perfumes, as sellers wrote them: two listings of a perfume where the fixture has two
  const byPerfume = new Map<string, { title: string; house: string }[]>();
  for (const l of loadLabelledListings()) {
    if (l.label.kind !== 'catalog' || (l.label.form && l.label.form !== 'full')) continue;
    const titles = byPerfume.get(l.label.perfume_id) ?? [];
    if (!titles.some((t) => t.title === l.title)) titles.push({ title: l.title, house: l.house });
    byPerfume.set(l.label.perfume_id, titles);
  }
  const perfumes = [...byPerfume.keys()].filter((id) => snapshot.byId.has(id)).sort();
  const twoWays = perfumes.filter((id) => (byPerfume.get(id) ?? []).length > 1).length;
  const disputed = new Map<string, string>();
  for (let i = 0; i + 1 < perfumes.length && disputed.size < CONFLICTS * 2; i += 17) {
    const code = withCheck(`62990000${String(i).padStart(4, '0')}`);
    disputed.set(perfumes[i] as string, code);
    disputed.set(perfumes[i + 1] as string, code);
  }
  const teacherFeed = (which: 0 | 1) =>
    perfumes.map((id, i) => {
      const titles = byPerfume.get(id) as { title: string; house: string }[];
      const listing = titles[Math.min(which, titles.length - 1)] as { title: string; house: string };
      const extra = disputed.get(id);
      // the first shop puts a disputed barcode on the first perfume of its pair, the second on the other
      const onThis = extra !== undefined && (perfumes.indexOf(id) % 17 === 0) === (which === 0);
      return {
        merchant_product_id: `p${i}`,
        // the seller's own house field, as given (often empty on a marketplace)
        name: listing.title,
        house: listing.house,
        price: 300,
        barcode: barcodeOf(id),
        ...(onThis
          ? {
              sizes: [
                { label: '100 ml', price: 300 },
                { label: 'tester', price: 200, barcode: extra },
              ],
            }
          : {}),
      };
    });
  const junk = [
    ...perfumes.map((id, i) => ({
      merchant_product_id: `j${i}`,
      name: `Item ${1000 + i}`,
      price: 100,
      barcode: barcodeOf(id),
    })),
    ...[...new Set(disputed.values())].map((code, i) => ({
      merchant_product_id: `x${i}`,
      name: `Item ${9000 + i}`,
      price: 100,
      barcode: code,
    })),
  ];

  const timed = async <T>(f: () => Promise<T>) => {
    const t = performance.now();
    const value = await f();
    return { value, ms: performance.now() - t };
  };
  const s1 = await timed(() => syncProducts(database.db, snapshot, a1.id, teacherFeed(0)));
  const l1 = await timed(() => learnMerchant(database.db, snapshot, a1.id));
  const s2 = await timed(() => syncProducts(database.db, snapshot, a2.id, teacherFeed(1)));
  const l2 = await timed(() => learnMerchant(database.db, snapshot, a2.id));
  const s3 = await timed(() => syncProducts(database.db, snapshot, c.id, junk));
  const l3 = await timed(() => learnMerchant(database.db, snapshot, c.id));

  const rows = await database.db.query.merchantProducts.findMany({
    where: (t, { eq }) => eq(t.merchantId, c.id),
  });
  const by = new Map(rows.map((r) => [r.merchantProductId, r]));
  let right = 0;
  let wrong = 0;
  let missed = 0;
  perfumes.forEach((id, i) => {
    const got = by.get(`j${i}`)?.sillagePerfumeId ?? null;
    if (got === id) right++;
    else if (got) wrong++;
    else missed++;
  });
  const conflictMatched = [...by.values()].filter(
    (r) => r.merchantProductId.startsWith('x') && r.sillagePerfumeId,
  ).length;
  const n = perfumes.length;
  const figures = {
    perfumes: n,
    listed_two_ways: twoWays,
    right,
    wrong,
    missed,
    right_share: right / n,
    conflicts: disputed.size / 2,
    conflicts_matched: conflictMatched,
    keys: l2.value.keys,
    sync_ms: { a1: s1.ms, a2: s2.ms, c: s3.ms },
    learn_ms: { a1: l1.ms, a2: l2.ms, c: l3.ms },
    learn_ms_per_product: l2.ms / n,
    learn_work: { a1: l1.value, a2: l2.value, c: l3.value },
    barcode_keys_checked: gtinKey(barcodeOf(perfumes[0] as string)).length,
  };
  log(
    `| ${n} | ${twoWays} | ${right} (${pct(right / n)}) | ${wrong} | ${missed} | ${figures.conflicts} / ${conflictMatched} | ${l2.value.keys} | ${(l2.ms / n).toFixed(3)} ms | ${l2.value.statements} / ${l2.value.witnesses} |`,
  );
  return figures;
}

export async function runLearningBench(log: (s: string) => void = console.log) {
  log(
    '| perfumes | listed two ways | third shop right | wrong | missed | conflicts / matched | keys learnt | learning per product | statements / rows read |\n|---|---|---|---|---|---|---|---|---|',
  );
  return onBenchDatabases((database) => run(database, log));
}

const CONCENTRATION_WORDS: Record<string, string> = {
  edp: 'Eau de Parfum',
  edt: 'Eau de Toilette',
  edc: 'Eau de Cologne',
  parfum: 'Parfum',
  extrait: 'Extrait de Parfum',
  elixir: 'Elixir',
};

/**
 * Profiles as shops describe them: the perfumes of our catalog whose notes two independent sources
 * give in their own words (the texts their records quote as evidence, from shops, reviews and
 * launch pages), taken as if the catalog knew only who they are (their profile set aside for the
 * run). B lists them by name alone; A1 and A2 each describe them with one of the two texts.
 */
async function runShops(database: Database, log: (s: string) => void) {
  const { merchant: b } = await benchShop(database);
  const shop = (slug: string) => createMerchant(database.db, { name: slug, slug: `${slug}-${b.slug}` });
  const a1 = await shop('a1');
  const a2 = await shop('a2');
  const texts = new Map<string, [string, string]>();
  const recordNotes = new Map<string, Set<string>>();
  for (const r of loadBundledCatalog().perfumes) {
    const byOwner = new Map<string, string>();
    for (const e of r.evidence ?? [])
      if (e.supports.includes('notes') && e.gave && !byOwner.has(e.owner ?? e.source))
        byOwner.set(e.owner ?? e.source, e.gave);
    if (byOwner.size < 2) continue;
    const [first, second] = [...byOwner.values()];
    texts.set(r.id, [first as string, second as string]);
    recordNotes.set(
      r.id,
      new Set(
        [...(r.notes?.top ?? []), ...(r.notes?.heart ?? []), ...(r.notes?.base ?? [])]
          .map((n) => resolveNote(n)?.slug)
          .filter((n): n is string => !!n),
      ),
    );
  }
  const ids = [...texts.keys()].sort();
  // the catalog as if it knew only who these perfumes are
  await database.db.update(perfumes).set({ grade: null }).where(inArray(perfumes.id, ids));
  const snapshot = await loadSnapshot(database.db);
  const records = ids.map((id) => snapshot.byId.get(id)).filter((p) => p !== undefined);
  const nameOf = (p: (typeof records)[number]) =>
    `${p.house} ${p.name} ${CONCENTRATION_WORDS[p.concentration ?? ''] ?? ''} 100ml`.replace(/\s+/g, ' ');
  const listed = records.map((p, i) => ({ merchant_product_id: `p${i}`, name: nameOf(p), price: 500 }));
  const withText = (which: 0 | 1) =>
    records.map((p, i) => ({ ...listed[i], description: (texts.get(p.id) as [string, string])[which] }));

  const profiledFromMoreThanName = async () => {
    const rows = await database.db.query.merchantProducts.findMany({ where: (t, { eq }) => eq(t.merchantId, b.id) });
    const recognised = rows.filter((r) => r.sillagePerfumeId === ids[Number(r.merchantProductId.slice(1))]).length;
    const views = rows.map((r) => productView(r, snapshot));
    return {
      recognised,
      shops: views.filter((v) => v.quality === 'shops'),
      beyondName: views.filter((v) => v.quality !== null && v.quality !== 'guessed').length,
    };
  };
  await syncProducts(database.db, snapshot, b.id, listed);
  await learnMerchant(database.db, snapshot, b.id);
  const before = await profiledFromMoreThanName();
  await syncProducts(database.db, snapshot, a1.id, withText(0));
  await learnMerchant(database.db, snapshot, a1.id);
  await syncProducts(database.db, snapshot, a2.id, withText(1));
  const t = performance.now();
  const learnt = await learnMerchant(database.db, snapshot, a2.id);
  const learnMs = performance.now() - t;
  const after = await profiledFromMoreThanName();
  // how far the notes shops agree on are the record's own (set aside for the run)
  let agreedNotes = 0;
  let inRecord = 0;
  for (const v of after.shops) {
    const id = v.sillage_perfume_id as string;
    const own = recordNotes.get(id) ?? new Set();
    const [row] = await database.db
      .select()
      .from(learntProfiles)
      .where(inArray(learntProfiles.perfumeId, [id]));
    const notes = row ? [...row.notes.top, ...row.notes.heart, ...row.notes.base, ...row.notes.flat] : [];
    agreedNotes += notes.length;
    inRecord += notes.filter((n) => own.has(n)).length;
  }
  const n = records.length;
  const figures = {
    perfumes: n,
    recognised: after.recognised,
    before: before.beyondName / n,
    after: after.beyondName / n,
    shops: after.shops.length,
    notes_agreed: agreedNotes,
    notes_in_record: agreedNotes ? inRecord / agreedNotes : null,
    learn_ms: learnMs,
    learn_work: learnt,
  };
  log(
    `| ${n} | ${after.recognised} | ${pct(figures.before)} | ${pct(figures.after)} | ${after.shops.length} | ${agreedNotes} (${figures.notes_in_record === null ? '–' : pct(figures.notes_in_record)} in the record) | ${learnMs.toFixed(0)} ms (${learnt.descriptionsRead} descriptions, ${learnt.statements} statements) |`,
  );
  return figures;
}

export async function runShopProfilesBench(log: (s: string) => void = console.log) {
  log(
    '| perfumes | B recognised | B profiled beyond its names, before | after A1 and A2 | as shops describe them | notes agreed | learning A2 |\n|---|---|---|---|---|---|---|',
  );
  return onBenchDatabases((database) => runShops(database, log));
}

/** merchants syncing at once, and products each (BENCH_LEARN_MERCHANTS, BENCH_LEARN_PRODUCTS) */
const LOAD_MERCHANTS = Number(process.env.BENCH_LEARN_MERCHANTS) || 20;
const LOAD_PER_MERCHANT = Number(process.env.BENCH_LEARN_PRODUCTS) || 2000;
const LOAD_SCORE_RATE = Number(process.env.BENCH_SCORE_RATE) || 50;

/**
 * A score's p99 while many merchants sync and the service learns from their shelves:
 *   npm run bench -- learning-load
 * The service runs in its own process (bench/score-server.ts `service`: in-memory PGlite, or
 * BENCH_DATABASE_URL; an honest shop of 1,000 synced products). BENCH_LEARN_MERCHANTS (20)
 * merchants each sync BENCH_LEARN_PRODUCTS (2,000) real listings (the labelled titles, each
 * perfume with its barcode, every other product with a labelled description) through the admin
 * API, four at a time, while the honest shop's storefront sends BENCH_SCORE_RATE (50) score
 * requests a second; the window runs until learning is done (the learnt barcodes stop changing).
 * Figures: score p99 and longest alone and during, the event loop's delay, the syncs' and the
 * learning's duration, what was learnt.
 */
export async function runLearningLoadBench(log: (s: string) => void = console.log) {
  log(
    '| merchants × products | score p99 alone | during syncs and learning (longest) | scores (non-2xx) | event-loop delay p99 (max) | syncs | until learnt | barcode keys |\n|---|---|---|---|---|---|---|---|',
  );
  const { honestScores, sendJson, loopDelay } = await import('./feeds.ts');
  const { quantile } = await import('./stats.ts');
  const { loadLabelledDescriptions } = await import('../tests/description-fixture.ts');
  const service = await startBenchServer<{ port: number; key: string; admin: string }>('service');
  const { port, key, admin } = service.info;
  const url = `http://127.0.0.1:${port}`;
  const headers = { authorization: `Bearer ${admin}` };
  const listings = loadLabelledListings().filter((l) => l.label.kind === 'catalog');
  const texts = loadLabelledDescriptions().map((d) => d.text);
  const feed = (m: number) =>
    Array.from({ length: LOAD_PER_MERCHANT }, (_, i) => {
      const l = listings[(i * 7 + m * 13) % listings.length] as (typeof listings)[number];
      const id = (l.label as { perfume_id: string }).perfume_id;
      return {
        merchant_product_id: `m${m}-p${i}`,
        name: l.title,
        house: l.house,
        price: 100 + (i % 400),
        barcode: barcodeOf(id),
        ...(i % 2 ? { description: texts[(i + m) % texts.length] } : {}),
      };
    });
  const scores = honestScores(url, key, LOAD_SCORE_RATE);
  const learnt = async () => {
    const r = await fetch(`${url}/api/admin/learning/barcodes?status=key&limit=1`, { headers });
    return ((await r.json()) as { total: number }).total;
  };
  try {
    await new Promise((r) => setTimeout(r, 3000));
    scores.start();
    await new Promise((r) => setTimeout(r, 5000));
    const alone = await scores.stop();
    await loopDelay(url, headers);
    const ids: string[] = [];
    for (let m = 0; m < LOAD_MERCHANTS; m++) {
      const r = await sendJson('POST', `${url}/api/admin/merchants`, headers, {
        name: `Learning ${m}`,
        slug: `learning-${m}-${process.pid}`,
      });
      ids.push((JSON.parse(r.body) as { id: string }).id);
    }
    const feeds = ids.map((_, m) => feed(m));
    scores.start();
    const t = performance.now();
    let next = 0;
    const worker = async () => {
      for (let m = next++; m < ids.length; m = next++) {
        const r = await sendJson('PUT', `${url}/api/admin/merchants/${ids[m]}/products`, headers, {
          products: feeds[m],
        });
        if (r.status !== 200) throw new Error(`sync answered ${r.status}: ${r.body.slice(0, 200)}`);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    const synced = (performance.now() - t) / 1000;
    // learning is done when what it learnt stops changing (asked every 2 s), at most 5 minutes
    let last = -1;
    for (let waited = 0; waited < 300_000; waited += 2000) {
      await new Promise((r) => setTimeout(r, 2000));
      const now = await learnt();
      if (now === last && now > 0) break;
      last = now;
    }
    const total = (performance.now() - t) / 1000;
    const during = await scores.stop();
    const loop = await loopDelay(url, headers);
    const max = (xs: number[]) => xs.reduce((a, b) => Math.max(a, b), 0);
    const figures = {
      merchants: LOAD_MERCHANTS,
      per_merchant: LOAD_PER_MERCHANT,
      alone_p99: quantile(alone.latencies, 0.99),
      p99: quantile(during.latencies, 0.99),
      max: max(during.latencies),
      scores: during.latencies.length,
      failed: during.failed,
      sync_seconds: synced,
      learnt_seconds: total,
      keys: last,
      loop_p99: loop.p99,
      loop_max: loop.max,
    };
    log(
      `| ${LOAD_MERCHANTS} × ${LOAD_PER_MERCHANT.toLocaleString('en')} | ${figures.alone_p99.toFixed(0)} ms | ${figures.p99.toFixed(0)} ms (${figures.max.toFixed(0)}) | ${figures.scores} (${figures.failed}) | ${figures.loop_p99.toFixed(0)} ms (${figures.loop_max.toFixed(0)}) | ${synced.toFixed(1)} s | ${total.toFixed(1)} s | ${last} |`,
    );
    return figures;
  } finally {
    await scores.close();
    service.child.kill('SIGTERM');
  }
}
