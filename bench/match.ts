import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { CatalogSnapshot } from '../catalog/store.ts';
import { QUALITIES } from '../contracts/widget.ts';
import { createDatabase, type Database } from '../db/client.ts';
import { MATCH_THRESHOLD, matchListing } from '../matching/matcher.ts';
import { recogniseProduct } from '../matching/recognise.ts';
import { loadSnapshot } from '../services/catalog.ts';
import { syncProducts } from '../services/products.ts';
import { figuresOf, loadLabelledListings, outcomeOf } from '../tests/listing-fixture.ts';
import { benchShop, labelledListingFeed, onBenchDatabases } from './databases.ts';
import { median } from './stats.ts';

const N = 20_000;

const feed = () => labelledListingFeed(N, (i) => ({ product_url: `https://shop.example/p/${i}` }));

async function timedSync(database: Database) {
  const { snapshot, merchant } = await benchShop(database);
  const products = feed();
  let t = performance.now();
  const first = await syncProducts(database.db, snapshot, merchant.id, products);
  const firstS = (performance.now() - t) / 1000;
  t = performance.now();
  await syncProducts(database.db, snapshot, merchant.id, products);
  const secondS = (performance.now() - t) / 1000;
  return { products: first.upserted, matched: first.matched, firstSyncSeconds: firstS, resyncSeconds: secondS };
}

/** Recognition alone (no sync): the labelled listings and the shared real listings, on the shipped catalog. */
export async function runRecognitionBench(log: (s: string) => void = console.log) {
  const lite = await createDatabase({ database: { kind: 'pglite', dataDir: null } });
  await lite.migrate();
  const snapshot = await loadSnapshot(lite.db);
  await lite.close();
  return {
    recognition: recognitionFigures(snapshot, log),
    shared: sharedListingsFigures(snapshot, log),
    described: describedFeedFigures(snapshot, log),
  };
}

export async function runMatchBench(log: (s: string) => void = console.log) {
  const lite = await createDatabase({ database: { kind: 'pglite', dataDir: null } });
  await lite.migrate();
  const snapshot = await loadSnapshot(lite.db);
  const recognition = recognitionFigures(snapshot, log);
  const shared = sharedListingsFigures(snapshot, log);
  const worstCase = worstCaseFigures(snapshot, log);
  const products = feed();
  const rates: number[] = [];
  for (let run = 0; run < 3; run++) {
    const t = performance.now();
    for (const p of products) matchListing(snapshot, p);
    rates.push(N / ((performance.now() - t) / 1000));
  }
  await lite.close();
  const results: Record<string, unknown> = { matcherProductsPerSecond: median(rates) };
  const figures = { recognition, shared, worstCase };
  log(`matcher alone: ${N} listings, ${Math.round(median(rates))} products/s (median of 3)`);

  Object.assign(results, await onBenchDatabases(timedSync));
  log('| database | products | first sync (s) | re-sync (s) |');
  log('|---|---|---|---|');
  for (const [db, r] of Object.entries(results).filter(([k]) => k === 'pglite' || k === 'postgres') as [
    string,
    { products: number; firstSyncSeconds: number; resyncSeconds: number },
  ][]) {
    log(`| ${db} | ${r.products} | ${r.firstSyncSeconds.toFixed(2)} | ${r.resyncSeconds.toFixed(2)} |`);
  }
  return { ...results, ...figures };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function recognitionFigures(snapshot: CatalogSnapshot, log: (s: string) => void) {
  const rows = loadLabelledListings().map((l) => ({
    l,
    m: matchListing(snapshot, { name: l.title, house: l.house ?? '' }),
  }));
  const lineOf = (id: string) => snapshot.byId.get(id);
  const at = (threshold: number, part: 'tune' | 'holdout') =>
    figuresOf(
      rows
        .filter(({ l }) => l.part === part)
        .map(({ l, m }) => ({
          label: l.label,
          outcome: outcomeOf(
            l.label,
            { perfumeId: m.confidence >= threshold ? m.perfumeId : null, sibling: m.sibling === true },
            lineOf,
          ),
        })),
    );
  log('\nrecognition on the labelled listings (threshold in use first):');
  log(
    '| part | listings | of catalog perfumes | right | missed | wrong | siblings said | version unsure | non-perfumes matched | recall | wrong ÷ matches |',
  );
  log('|---|---|---|---|---|---|---|---|---|---|---|');
  const parts = {} as Record<string, ReturnType<typeof figuresOf>>;
  for (const part of ['tune', 'holdout'] as const) {
    const f = at(MATCH_THRESHOLD, part);
    parts[part] = f;
    log(
      `| ${part} | ${f.listings} | ${f.inCatalog} | ${f.right} | ${f.missed} | ${f.wrong} | ${f.sibling} | ${f.versionUnsure} | ${f.notPerfumeMatched} of ${f.notPerfume} | ${pct(f.recall)} | ${pct(f.wrongShare)} |`,
    );
  }
  log('\nthreshold curve (recall and wrong share, tuned-on / held-out):');
  log('| threshold | recall tune | wrong tune | recall holdout | wrong holdout |');
  log('|---|---|---|---|---|');
  const curve = [0.8, 0.82, 0.84, 0.86, 0.88, 0.9, 0.92, 0.95].map((t) => {
    const a = at(t, 'tune');
    const b = at(t, 'holdout');
    log(`| ${t} | ${pct(a.recall)} | ${pct(a.wrongShare)} | ${pct(b.recall)} | ${pct(b.wrongShare)} |`);
    return { threshold: t, tune: a, holdout: b };
  });
  return { parts, curve };
}

/** The 2,000 shared real listings, when this checkout has them beside it: the share matched. */
function sharedListingsFigures(snapshot: CatalogSnapshot, log: (s: string) => void) {
  const dir = new URL('../../shared/data/real-listings/', import.meta.url);
  const files = ['ebay-mens-2024-05.csv', 'ebay-womens-2024-05.csv'].map((f) => new URL(f, dir));
  if (!files.every((f) => existsSync(f))) {
    log('\nshared real listings: not present beside this checkout, skipped');
    return null;
  }
  const rows = files.flatMap(
    (f) =>
      parse(readFileSync(f, 'utf8').replace(/^\uFEFF/, ''), { columns: true }) as { brand: string; title: string }[],
  );
  const matched = rows.filter((r) => matchListing(snapshot, { name: r.title, house: r.brand }).perfumeId !== null);
  log(`\nshared real listings: ${matched.length} of ${rows.length} matched (${pct(matched.length / rows.length)})`);
  const byQuality = recommendableFigures(
    snapshot,
    rows.map((r) => ({ name: r.title, house: r.brand, description: null })),
    'shared real listings (titles only)',
    log,
  );
  return { listings: rows.length, matched: matched.length, byQuality };
}

/**
 * Recognised and recommendable, by what each profile rests on (matching/recognise.ts): each listing
 * through the one path a sync and an inline score take, with its description when it has one.
 */
function recommendableFigures(
  snapshot: CatalogSnapshot,
  listings: readonly { name: string; house: string; description: string | null }[],
  label: string,
  log: (s: string) => void,
) {
  const counts = new Map<string, number>();
  for (const [i, l] of listings.entries()) {
    const r = recogniseProduct(
      {
        merchantProductId: String(i),
        name: l.name,
        house: l.house,
        price: null,
        currency: 'SAR',
        imageUrl: null,
        productUrl: null,
        accords: null,
        notes: null,
        description: l.description,
        available: true,
        salePrice: null,
        sizes: null,
        barcode: null,
        barcodeIssues: [],
      },
      snapshot,
    );
    const key = r.quality ?? (r.status === 'matched' ? 'recognised, no profile' : 'not recognised, no profile');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const n = listings.length;
  const order = [...QUALITIES, 'recognised, no profile', 'not recognised, no profile'];
  const recommendable = QUALITIES.reduce((sum, q) => sum + (counts.get(q) ?? 0), 0);
  log(`\n${label}: ${recommendable} of ${n} recommendable (${pct(recommendable / n)}), by what each rests on:`);
  log('| quality | listings | share |');
  log('|---|---|---|');
  for (const q of order) log(`| ${q} | ${counts.get(q) ?? 0} | ${pct((counts.get(q) ?? 0) / n)} |`);
  return { listings: n, recommendable, byQuality: Object.fromEntries(order.map((q) => [q, counts.get(q) ?? 0])) };
}

/** The labelled shop descriptions as a feed: each product named by its description's first line, with no house field (read from the title). */
function describedFeedFigures(snapshot: CatalogSnapshot, log: (s: string) => void) {
  const rows = readFileSync(new URL('../tests/fixtures/descriptions/descriptions.jsonl', import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { text: string });
  return recommendableFigures(
    snapshot,
    rows.map((r) => ({ name: (r.text.split('\n')[0] ?? '').slice(0, 300), house: '', description: r.text })),
    'a feed with descriptions (the 231 labelled shop descriptions, named by their first line, no house field)',
    log,
  );
}

/** The slowest listings a client can send, beside a typical one: median and worst of 50 runs. */
function worstCaseFigures(snapshot: CatalogSnapshot, log: (s: string) => void) {
  const cases: Record<string, { name: string; house: string }> = {
    typical: { name: 'Dior Sauvage Eau de Parfum 100ml', house: 'Dior' },
    'typical, Arabic': { name: 'عطر سوفاج من ديور للرجال او دو بارفان 100 مل', house: 'ديور' },
    '300 letters run together': {
      name: 'sauvagekhamrahaventusoudwoodbaccaratrougelightblue'.repeat(6).slice(0, 300),
      house: 'Dior',
    },
    'one letter × 300': { name: 'a'.repeat(300), house: 'Dior' },
    'perfume words × 60': {
      name: Array.from({ length: 60 }, (_, i) => ['sauvage', 'khamrah', 'aventus', 'oud', 'wood', 'rouge'][i % 6]).join(
        ' ',
      ),
      house: 'Dior',
    },
    'mixed scripts': { name: 'عطرsauvage'.repeat(30), house: 'Dior' },
    'no house, 300 letters': { name: 'sauvagekhamrahaventus'.repeat(15), house: 'AS SHOWN' },
    'no house, words': { name: 'oud wood rose black blue night intense '.repeat(8), house: '' },
  };
  log('\ncost of one listing (ms, 50 runs each):');
  log('| listing | median | worst |');
  log('|---|---|---|');
  const out: Record<string, { medianMs: number; worstMs: number }> = {};
  for (const [label, listing] of Object.entries(cases)) {
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      matchListing(snapshot, listing);
      times.push(performance.now() - t);
    }
    out[label] = { medianMs: median(times), worstMs: Math.max(...times) };
    log(`| ${label} | ${median(times).toFixed(3)} | ${Math.max(...times).toFixed(3)} |`);
  }
  return out;
}
