import { loadBundledCatalog } from '../catalog/bundled.ts';
import type { Database } from '../db/client.ts';
import { agreementWithNotes, checkedPerfumeOf } from '../matching/accord-check.ts';
import { MAX_DESCRIPTION_CHARS, readDescription } from '../matching/description.ts';
import { syncProducts } from '../services/products.ts';
import { loadLabelledDescriptions, scoreDescriptions } from '../tests/description-fixture.ts';
import { benchShop, labelledListingFeed, onBenchDatabases } from './databases.ts';
import { median } from './stats.ts';

const N = 20_000;
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

async function timedSync(database: Database) {
  const { snapshot, merchant } = await benchShop(database);
  const texts = loadLabelledDescriptions().map((d) => d.text);
  const products = labelledListingFeed(N, (i) => ({ description: texts[i % texts.length] }));
  const t = performance.now();
  const r = await syncProducts(database.db, snapshot, merchant.id, products);
  return { products: r.upserted, matched: r.matched, partial: r.partial, seconds: (performance.now() - t) / 1000 };
}

export async function runNotesBench(log: (s: string) => void = console.log) {
  const catalog = loadBundledCatalog().perfumes.map(checkedPerfumeOf);
  const agreement = agreementWithNotes(catalog);
  log(
    `agreement with the catalog, ${agreement.perfumes} perfumes: ${agreement.meanShared.toFixed(2)} of 5 accords shared; strongest accord in the derived top 3 for ${pct(agreement.topInTop3)}`,
  );
  log('\nmost disagreeing records:\n| perfume | shared | listed top 5 | derived top 5 |\n|---|---|---|---|');
  for (const w of agreement.worst.slice(0, 10)) {
    log(`| ${w.id} | ${w.shared} | ${w.listed.join(', ')} | ${w.derived.join(', ')} |`);
  }

  const rows = loadLabelledDescriptions();
  const descriptions: Record<string, ReturnType<typeof scoreDescriptions>> = {};
  log(
    '\ndescription reader:\n| descriptions | count | notes labelled | found | recall | precision | right tier |\n|---|---|---|---|---|---|---|',
  );
  for (const [name, part] of [
    ['all', rows],
    ['English', rows.filter((r) => r.lang === 'en')],
    ['Arabic', rows.filter((r) => r.lang === 'ar')],
    ['mixed', rows.filter((r) => r.lang === 'mixed')],
  ] as const) {
    const f = scoreDescriptions(part);
    descriptions[name] = { ...f, missed: f.missed.slice(0, 40), extra: f.extra.slice(0, 40) };
    log(
      `| ${name} | ${f.descriptions} | ${f.labelled} | ${f.found} | ${pct(f.recall)} | ${pct(f.precision)} | ${pct(f.tierRight)} |`,
    );
  }

  const worstTexts: Record<string, string> = {
    'typical pyramid': 'Top notes: Bergamot, Pink Pepper | Heart notes: Rose, Jasmine | Base notes: Oud, Amber',
    'longest, one note repeated': 'oud '.repeat(2000),
    'longest, Arabic notes with clitics': 'والعود وبالورد والمسك الأبيض '.repeat(400),
    'longest, labels only': 'Top notes: '.repeat(800),
    'longest, four-word phrases': 'iso e super cashmere wood '.repeat(400),
  };
  const cost: Record<string, { median: number; worst: number }> = {};
  log('\ncost of one description (ms, 50 runs):\n| description | median | worst |\n|---|---|---|');
  for (const [name, text] of Object.entries(worstTexts)) {
    const t = text.slice(0, MAX_DESCRIPTION_CHARS);
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const s = performance.now();
      readDescription(t);
      times.push(performance.now() - s);
    }
    cost[name] = { median: median(times), worst: Math.max(...times) };
    log(`| ${name} | ${median(times).toFixed(3)} | ${Math.max(...times).toFixed(3)} |`);
  }

  const sync = await onBenchDatabases(timedSync);
  log('\nsync with descriptions:\n| database | products | matched | partial | seconds |\n|---|---|---|---|---|');
  for (const [db, r] of Object.entries(sync)) {
    log(`| ${db} | ${r.products} | ${r.matched} | ${r.partial} | ${r.seconds.toFixed(2)} |`);
  }
  return { agreement, descriptions, cost, sync };
}
