/**
 * A storefront's traffic, mixed as it arrives: score 10%, event 85%, verify
 * and lookup 5% — at rising concurrency, then a soak at a steady rate.
 *
 *   npm run bench -- load          (SOAK_SECONDS=600 by default; 0 skips the soak)
 *
 * The service runs in its own process with its production settings (behind a
 * trusted proxy, PostgreSQL and Redis when BENCH_DATABASE_URL and
 * BENCH_REDIS_URL are set, else in-memory PGlite), a shop with 1,000 synced
 * products. Requests come from 50,000 shopper addresses (X-Forwarded-For), so
 * no shopper nears the per-key-and-address limits: any non-2xx is an error.
 * The soak samples the service's memory from its own /metrics.
 */
import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';
import { createScratchDatabase } from '../db/scratch.ts';
import { startBenchServer } from './child.ts';
import { QUIZ_ANSWERS, run } from './score-endpoint.ts';

const ADDRESSES = 50_000;
const MIX = 20; // per 20 requests: 2 score, 1 verify or lookup, 17 events
const LOOKUPS = ['sauvage', 'oud wood', 'بكرات روج', 'aventus', 'lattafa', 'amber', 'tom ford', 'khamrah'];

function mixedRequests(key: string) {
  let n = 0;
  return [
    {
      setupRequest: (req: autocannon.Request) => {
        const i = n++;
        const slot = i % MIX;
        const address = i % ADDRESSES;
        const headers = {
          'content-type': 'application/json',
          'x-widget-version': 'v1',
          'x-forwarded-for': `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`,
        };
        let path = '/api/widget/event';
        let body: object = { api_key: key, type: 'widget_loaded', session_id: randomUUID() };
        if (slot === 0 || slot === 10) {
          path = '/api/widget/score';
          body = { api_key: key, quiz: QUIZ_ANSWERS[i % QUIZ_ANSWERS.length] };
        } else if (slot === 5) {
          path = (i / MIX) % 2 < 1 ? '/api/widget/verify' : '/api/widget/lookup';
          body = path.endsWith('verify') ? { api_key: key } : { api_key: key, query: LOOKUPS[i % LOOKUPS.length] };
        }
        return { ...req, path, method: 'POST', headers, body: JSON.stringify(body) };
      },
    },
  ] as autocannon.Request[];
}

async function memory(port: number, admin: string) {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${admin}` } });
  const text = await res.text();
  const value = (name: string) =>
    Number(/^(\S+) (\S+)$/m.exec(text.split('\n').find((l) => l.startsWith(`${name} `)) ?? '')?.[2]);
  return { rss: value('process_resident_memory_bytes'), heap: value('nodejs_heap_size_used_bytes') };
}

/** least-squares slope of y over x */
function slope(xs: number[], ys: number[]) {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += ((xs[i] as number) - mx) * ((ys[i] as number) - my);
    den += ((xs[i] as number) - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

export async function runLoadBench(log: (s: string) => void = console.log, stepSeconds = 10) {
  const soakSeconds = Number(process.env.SOAK_SECONDS ?? 600);
  const url = process.env.BENCH_DATABASE_URL;
  const scratch = url ? await createScratchDatabase(url, 'sillage_load') : null;
  if (scratch) await scratch.database.close();
  const env: Record<string, string> = scratch?.url ? { BENCH_DATABASE_URL: scratch.url } : { BENCH_DATABASE_URL: '' };
  const backend = scratch ? `PostgreSQL${process.env.BENCH_REDIS_URL ? ' + Redis' : ''}` : 'PGlite (memory)';
  const { child, info } = await startBenchServer<{ port: number; key: string; admin: string }>('service', env);
  const base = `http://127.0.0.1:${info.port}`;
  const results: Record<string, unknown> = { backend, steps: [] as unknown[] };
  try {
    // warm up: the first scores compile the merchant's catalog
    await run({ url: base, connections: 8, duration: 3, requests: mixedRequests(info.key) });

    log(`Backend: ${backend}. Mix per 20 requests: 2 score, 17 event, 1 verify or lookup.\n`);
    log('| connections | requests/s | p50 ms | p97.5 ms | p99 ms | non-2xx | errors + timeouts |');
    log('|---|---|---|---|---|---|---|');
    let best: { connections: number; rps: number } | null = null;
    for (const connections of [4, 8, 16, 32, 64, 128, 256]) {
      const r = await run({ url: base, connections, duration: stepSeconds, requests: mixedRequests(info.key) });
      const step = {
        connections,
        rps: Math.round(r.requests.average),
        p50: r.latency.p50,
        p97_5: r.latency.p97_5,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
      };
      (results.steps as unknown[]).push(step);
      log(
        `| ${connections} | ${step.rps} | ${step.p50} | ${step.p97_5} | ${step.p99} | ${step.non2xx} | ${step.errors} |`,
      );
      if (step.p99 < 50 && step.non2xx === 0 && step.errors === 0 && (!best || step.rps > best.rps)) {
        best = { connections, rps: step.rps };
      }
    }
    results.bestUnder50msP99 = best;
    log(
      `\nHighest throughput with p99 under 50 ms and no errors: ${best ? `${best.rps} req/s at ${best.connections} connections` : 'none'}`,
    );

    if (soakSeconds > 0 && best) {
      const rate = Math.round(best.rps / 2);
      log(`\nSoak: ${rate} req/s (half of that) for ${soakSeconds} s; memory from /metrics every 15 s.\n`);
      const samples: { t: number; rss: number; heap: number }[] = [];
      const t0 = Date.now();
      const sampler = setInterval(() => {
        void memory(info.port, info.admin).then((m) => samples.push({ t: (Date.now() - t0) / 1000, ...m }));
      }, 15_000);
      const r = await run({
        url: base,
        connections: 32,
        overallRate: rate,
        duration: soakSeconds,
        requests: mixedRequests(info.key),
      });
      clearInterval(sampler);
      const second = samples.filter((s) => s.t >= soakSeconds / 2);
      const mb = (b: number) => b / 1024 / 1024;
      const rssSlope = slope(
        second.map((s) => s.t / 60),
        second.map((s) => mb(s.rss)),
      );
      const heapSlope = slope(
        second.map((s) => s.t / 60),
        second.map((s) => mb(s.heap)),
      );
      log('| minute | RSS MB | heap used MB |');
      log('|---|---|---|');
      for (const s of samples.filter((_, i) => i % 4 === 3)) {
        log(`| ${(s.t / 60).toFixed(1)} | ${mb(s.rss).toFixed(0)} | ${mb(s.heap).toFixed(0)} |`);
      }
      const soak = {
        rate,
        seconds: soakSeconds,
        requests: r.requests.total,
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
        p99: r.latency.p99,
        rssSlopeMbPerMin: Number(rssSlope.toFixed(2)),
        heapSlopeMbPerMin: Number(heapSlope.toFixed(2)),
        samples,
      };
      results.soak = soak;
      log(
        `\nSoak: ${soak.requests} requests, ${soak.non2xx} non-2xx, ${soak.errors} errors, p99 ${soak.p99} ms; second-half trend: RSS ${soak.rssSlopeMbPerMin} MB/min, heap ${soak.heapSlopeMbPerMin} MB/min`,
      );
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await scratch?.drop();
  }
  return results;
}
