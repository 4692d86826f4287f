/**
 * What shelves teach (docs/learning.md), measured: two shops list the same real perfumes their own
 * way (the labelled listings of tests/fixtures/listings, each perfume with its bottle's barcode), a
 * third lists them by barcode and a junk name only. How many of the third shop's products are
 * matched to the right perfume, how many wrong, how a barcode two shops put on different perfumes
 * is left; and what learning costs per synced product.
 */
import { createHash } from 'node:crypto';
import type { Database } from '../db/client.ts';
import { gtinKey } from '../lib/gtin.ts';
import { learnMerchant } from '../services/learning.ts';
import { createMerchant } from '../services/merchants.ts';
import { syncProducts } from '../services/products.ts';
import { withCheck } from '../tests/gtin-fixture.ts';
import { loadLabelledListings } from '../tests/listing-fixture.ts';
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
