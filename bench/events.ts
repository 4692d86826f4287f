import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { createScratchDatabase } from '../db/scratch.ts';
import { merchantAnalytics } from '../services/analytics.ts';
import { createMerchant } from '../services/merchants.ts';
import { attributePurchases } from '../services/purchase-attribution.ts';
import { startBenchServer } from './child.ts';
import { median } from './stats.ts';

async function ingest(info: { port: number; key: string }, perRequest: number, seconds: number) {
  let n = 0;
  const res = await autocannon({
    url: `http://127.0.0.1:${info.port}/api/widget/event`,
    connections: 50,
    duration: seconds,
    method: 'POST',
    requests: [
      {
        setupRequest: (req) => {
          n++;
          const events = Array.from({ length: perRequest }, (_, i) => ({
            type: 'widget_loaded',
            event_id: `b${perRequest}-${n}-${i}`,
          }));
          return {
            ...req,
            headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.9.${(n >> 8) & 255}.${n & 255}` },
            body: JSON.stringify(
              perRequest === 1 ? { api_key: info.key, ...events[0] } : { api_key: info.key, events },
            ),
          };
        },
      },
    ],
  });
  return {
    perRequest,
    requestsPerSecond: res.requests.average,
    eventsPerSecond: (res['2xx'] * perRequest) / seconds,
    acknowledged: res['2xx'] * perRequest,
    failed: res.non2xx + res.errors + res.timeouts,
    p99: res.latency.p99,
  };
}

async function storedCount(info: { port: number; merchant: string; admin: string }) {
  const res = await fetch(
    `http://127.0.0.1:${info.port}/api/admin/merchants/${info.merchant}/analytics?from=2000-01-01T00:00:00Z`,
    {
      headers: { authorization: `Bearer ${info.admin}` },
    },
  );
  return ((await res.json()) as { funnel: { widget_loaded: number } }).funnel.widget_loaded;
}

export async function runEventsBench(log: (s: string) => void = console.log, seconds = 10) {
  const results: Record<string, unknown> = {};
  const targets: [string, Record<string, string>, () => Promise<void>][] = [['pglite', {}, async () => {}]];
  const url = process.env.BENCH_DATABASE_URL;
  if (url) {
    const scratch = await createScratchDatabase(url, 'sillage_bench');
    await scratch.database.close();
    targets.push(['postgres', { BENCH_EVENTS_DATABASE_URL: scratch.url }, scratch.drop]);
  }
  log(
    '| database | events per request | events/s | requests/s | p99 ms | acknowledged (202) | stored | acknowledged but missing |',
  );
  log('|---|---|---|---|---|---|---|---|');
  for (const [name, env, cleanup] of targets) {
    const { child, info } = await startBenchServer<{ port: number; key: string; merchant: string; admin: string }>(
      'events',
      env,
    );
    try {
      let acknowledged = 0;
      for (const per of [10, 1]) {
        const r = await ingest(info, per, seconds);
        acknowledged += r.acknowledged;
        const stored = await storedCount(info);
        results[`${name}-${per}`] = { ...r, storedSoFar: stored };
        // stored can exceed acknowledged: requests in flight when the load stopped were stored, their answers not counted
        log(
          `| ${name} | ${per} | ${Math.round(r.eventsPerSecond)} | ${Math.round(r.requestsPerSecond)} | ${r.p99} | ${acknowledged} | ${stored} | ${Math.max(0, acknowledged - stored)} |`,
        );
      }
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      await cleanup();
    }
  }

  if (url) {
    const scratch = await createScratchDatabase(url, 'sillage_bench');
    try {
      const db = scratch.database.db;
      await scratch.database.migrate();
      const merchant = await createMerchant(db, { name: 'Analytics Bench', slug: 'analytics-bench' });
      const m = merchant.id;
      let t = performance.now();
      // 1,000,000 events over 30 days from 100,000 sessions; 20,000 purchases; 100,000 scored sessions
      await db.execute(sql`
        insert into events (merchant_id, session_id, test, type, event_id, occurred_at, data)
        select ${m}::uuid,
          md5('s' || (g % 100000))::uuid,
          g % 50 = 0,
          (array['widget_loaded','widget_opened','quiz_started','quiz_completed','results_viewed','recommendation_clicked','also_explore_clicked','widget_closed'])[1 + g % 8],
          'e' || g,
          now() - make_interval(secs => (g % 2592000)),
          case when g % 8 in (5, 6) then jsonb_build_object('merchant_product_id', 'p' || (g % 500), 'position', 1 + g % 6) else '{}'::jsonb end
        from generate_series(1, 1000000) as g`);
      await db.execute(sql`
        insert into purchases (merchant_id, session_id, test, order_id, total, currency, items, occurred_at)
        select ${m}::uuid, md5('s' || (g * 5 % 100000))::uuid, false, 'o' || g, 300, 'SAR',
          jsonb_build_array(jsonb_build_object('merchant_product_id', 'p' || (g * 5 % 500), 'quantity', 1, 'price', 200),
                            jsonb_build_object('merchant_product_id', 'x' || g, 'quantity', 1, 'price', 100)),
          now() - make_interval(secs => (g * 5 % 2592000))
        from generate_series(1, 20000) as g`);
      await db.execute(sql`
        insert into widget_answers (id, merchant_id, quiz, shown)
        select md5('a' || g)::uuid, ${m}::uuid,
          json_build_object('ratings', json_build_array(json_build_array('oud', 'love'), json_build_array('citrus', 'avoid'))),
          (select json_agg(json_build_object('merchant_product_id', 'p' || ((g + k) % 500), 'position', k, 'list', 'recommendations')) from generate_series(1, 6) k)
        from generate_series(0, 499) as g`);
      await db.execute(sql`
        insert into widget_sessions (id, merchant_id, test, locale, answer_id, created_at)
        select md5('s' || g)::uuid, ${m}::uuid, false, 'ar', md5('a' || (g % 500))::uuid,
          now() - make_interval(secs => (g % 2592000))
        from generate_series(1, 100000) as g`);
      const loadSeconds = (performance.now() - t) / 1000;
      // attribution happens as purchases are stored; for generated rows, once for all
      t = performance.now();
      await attributePurchases(db, m, null, 30);
      const attributionSeconds = (performance.now() - t) / 1000;
      await db.execute(sql`analyze`);
      const runs: number[] = [];
      for (let i = 0; i < 6; i++) {
        t = performance.now();
        await merchantAnalytics(db, m, {
          from: new Date(Date.now() - 30 * 86_400_000),
          to: new Date(),
          test: false,
          attributionWindowDays: 30,
        });
        if (i > 0) runs.push(performance.now() - t); // the first run warms the cache
      }
      results.analytics = { events: 1_000_000, loadSeconds, attributionSeconds, medianMs: median(runs), runsMs: runs };
      log(
        `\nanalytics over 1,000,000 events (+20,000 purchases, 100,000 scored sessions), 30 days, PostgreSQL: median ${Math.round(median(runs))} ms (runs: ${runs.map((r) => Math.round(r)).join(', ')} ms)`,
      );
    } finally {
      await scratch.database.close();
      await scratch.drop();
    }
  }
  return results;
}
