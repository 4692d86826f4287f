/**
 * Score throughput in the configurations operators run:
 *   npm run bench -- throughput
 * For each configuration — embedded PGlite on disk (the README's default),
 * PostgreSQL, PostgreSQL + Redis (shared rate limits) — one service process
 * with a merchant of 1,000 synced products, and autocannon (this process)
 * alternating the same server's GET /healthz and POST /api/widget/score, at 32
 * and then 128 connections, BENCH_ROUNDS rounds (5) of BENCH_SECONDS (8 s)
 * each. The figure is score req/s ÷ healthz req/s of the same round, the
 * median of the rounds: the machine's speed drifts, the ratio within a round
 * much less. Score requests rotate through 20,000 shopper addresses and 50
 * quizzes (bench/score-endpoint.ts), so the per-key-and-address limit is
 * counted on every request and never reached. First, the floor ("bare"): a
 * bare Fastify route in its own process that parses the same requests and
 * answers the same bytes (a score answer), writing at the end of each turn as
 * the service does, against that process's own /healthz — what any route with
 * this request and answer reaches. BENCH_CONFIGS=pglite,postgres
 * narrows the set; BENCH_DATABASE_URL names the PostgreSQL server
 * (postgres://postgres@127.0.0.1:5432/test by default), BENCH_REDIS_URL the
 * Redis (redis://127.0.0.1:6379).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { createScratchDatabase } from '../db/scratch.ts';
import { startBenchServer } from './child.ts';
import {
  cpuMicros,
  cpuSplitMicros,
  mainThreadCpuMicros,
  postgresCpuMicros,
  QUIZ_ANSWERS,
  requestStream,
  run,
} from './score-endpoint.ts';
import { median } from './stats.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS) || 5;
const SECONDS = Number(process.env.BENCH_SECONDS) || 8;
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '32,128').split(',').map(Number);
const PG_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const CONFIGS = (process.env.BENCH_CONFIGS ?? 'bare,pglite,postgres,postgres+redis').split(',');

interface Row {
  config: string;
  connections: number;
  ratio: number;
  rounds: number[];
  healthz: number;
  score: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** CPU µs per request of the service, healthz and score; and of PostgreSQL per score */
  cpu: { healthz: number; score: number; postgres: number; scoreKernel: number; scoreMainThread: number };
}

async function measure(config: string, log: (s: string) => void): Promise<Row[]> {
  const env: Record<string, string> = { BENCH_DATABASE_URL: '', BENCH_REDIS_URL: '' };
  let cleanup = async () => {};
  let path = '/api/widget/score';
  let mode = 'service';
  if (config === 'bare') {
    // the floor: a bare Fastify route that parses the same request and answers the same bytes,
    // writing at the end of each turn as the service does, against its own /healthz
    const dir = mkdtempSync(join(tmpdir(), 'bench-bare-'));
    const sample = await startBenchServer<{ port: number; key: string }>('service', { BENCH_DATABASE_URL: '' });
    const answer = await fetch(`http://127.0.0.1:${sample.info.port}/api/widget/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-widget-version': 'v1' },
      body: JSON.stringify({ api_key: sample.info.key, quiz: QUIZ_ANSWERS[0] }),
    });
    writeFileSync(join(dir, 'body.json'), await answer.text());
    sample.child.kill('SIGTERM');
    env.BARE_BODY_FILE = join(dir, 'body.json');
    env.BENCH_BARE_END_OF_TURN = '1';
    path = '/bare';
    mode = 'bare';
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  } else if (config === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-pglite-'));
    env.BENCH_PGLITE_DIR = dir;
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const scratch = await createScratchDatabase(PG_URL, 'sillage_tput');
    await scratch.database.close();
    env.BENCH_DATABASE_URL = scratch.url;
    if (config === 'postgres+redis') env.BENCH_REDIS_URL = REDIS_URL;
    cleanup = scratch.drop;
  }
  const service = await startBenchServer<{ port: number; key: string }>(mode, env);
  const rows: Row[] = [];
  try {
    const { port } = service.info;
    const key = service.info.key ?? 'pk_test_bare';
    for (const connections of CONNECTIONS) {
      const healthz: autocannon.Options = { url: `http://127.0.0.1:${port}/healthz`, connections, duration: SECONDS };
      const score: autocannon.Options = {
        url: `http://127.0.0.1:${port}${path}`,
        connections,
        duration: SECONDS,
        requests: requestStream(key, path),
      };
      await run({ ...score, duration: 2 }); // warm-up: caches, JIT
      await run({ ...healthz, duration: 2 });
      const per: { h: number; s: number; p50: number; p99: number; non2xx: number; cpu: Row['cpu'] }[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const c0 = cpuMicros(service.child.pid);
        const h = await run(healthz);
        const c1 = cpuMicros(service.child.pid);
        const pg0 = postgresCpuMicros();
        const k1 = cpuSplitMicros(service.child.pid).system;
        const m1 = mainThreadCpuMicros(service.child.pid);
        const s = await run(score);
        const c2 = cpuMicros(service.child.pid);
        const k2 = cpuSplitMicros(service.child.pid).system;
        const m2 = mainThreadCpuMicros(service.child.pid);
        const pg = postgresCpuMicros() - pg0;
        per.push({
          h: h.requests.average,
          s: s.requests.average,
          p50: s.latency.p50,
          p99: s.latency.p99,
          non2xx: s.non2xx + s.errors,
          cpu: {
            healthz: Math.round((c1 - c0) / Math.max(1, h.requests.total)),
            score: Math.round((c2 - c1) / Math.max(1, s.requests.total)),
            postgres: config === 'pglite' ? 0 : Math.round(pg / Math.max(1, s.requests.total)),
            scoreKernel: Math.round((k2 - k1) / Math.max(1, s.requests.total)),
            scoreMainThread: Math.round((m2 - m1) / Math.max(1, s.requests.total)),
          },
        });
      }
      const ratios = per.map((p) => p.s / p.h);
      const row: Row = {
        config,
        connections,
        ratio: median(ratios),
        rounds: ratios,
        healthz: median(per.map((p) => p.h)),
        score: median(per.map((p) => p.s)),
        p50: median(per.map((p) => p.p50)),
        p99: median(per.map((p) => p.p99)),
        non2xx: per.reduce((a, p) => a + p.non2xx, 0),
        cpu: {
          healthz: median(per.map((p) => p.cpu.healthz)),
          score: median(per.map((p) => p.cpu.score)),
          postgres: median(per.map((p) => p.cpu.postgres)),
          scoreKernel: median(per.map((p) => p.cpu.scoreKernel)),
          scoreMainThread: median(per.map((p) => p.cpu.scoreMainThread)),
        },
      };
      rows.push(row);
      log(
        `| ${config} | ${connections} | **${row.ratio.toFixed(2)}** (${ratios.map((x) => x.toFixed(2)).join(', ')}) | ${Math.round(row.healthz)} | ${Math.round(row.score)} | ${row.p50} | ${row.p99} | ${row.non2xx} | ${row.cpu.healthz} / ${row.cpu.score} (kernel ${row.cpu.scoreKernel}; main thread ${row.cpu.scoreMainThread})${row.cpu.postgres ? ` + ${row.cpu.postgres}` : ''} |`,
      );
    }
  } finally {
    service.child.kill('SIGTERM');
    await new Promise((r) => service.child.once('exit', r));
    await cleanup();
  }
  return rows;
}

export async function runThroughputBench(log: (s: string) => void = console.log) {
  log(
    `throughput: ${ROUNDS} rounds of ${SECONDS} s, 1,000 synced products; ratio = score ÷ healthz of the same server`,
  );
  log(
    '| configuration | connections | score ÷ healthz (rounds) | healthz req/s | score req/s | score p50 ms | score p99 ms | score non-2xx | service CPU µs/request, healthz / score (+ PostgreSQL) |',
  );
  log('|---|---|---|---|---|---|---|---|---|');
  const rows: Row[] = [];
  for (const config of CONFIGS) rows.push(...(await measure(config, log)));
  const at = (c: string, n: number) => rows.find((r) => r.config === c && r.connections === n);
  const pg = at('postgres', 32);
  const both = at('postgres+redis', 32);
  if (pg && both)
    log(`PostgreSQL + Redis ÷ PostgreSQL alone (score req/s, 32 connections): ${(both.score / pg.score).toFixed(2)}`);
  return rows;
}

/**
 * Rate-limit accuracy across instances: three service processes on one
 * PostgreSQL database and one Redis; one client (one key, one address) sends
 * BENCH_ACCURACY_REQUESTS verify calls (limit 60 a minute) as fast as it can,
 * spread evenly over the three with 10 connections each. Reported: how many
 * were admitted above the limit, as a share of the limit and of the calls sent.
 */
export async function runRateLimitAccuracy(log: (s: string) => void = console.log, rounds = ROUNDS) {
  const perInstance = Number(process.env.BENCH_ACCURACY_REQUESTS) || 300;
  const scratch = await createScratchDatabase(PG_URL, 'sillage_rl');
  await scratch.database.close();
  const env = { BENCH_DATABASE_URL: scratch.url, BENCH_REDIS_URL: REDIS_URL };
  const nodes = [];
  try {
    // one after another: the first migrates the scratch database
    for (let i = 0; i < 3; i++) nodes.push(await startBenchServer<{ port: number; key: string }>('service', env));
    const key = (nodes[0] as (typeof nodes)[number]).info.key;
    const limit = 60;
    const results: { admitted: number; sent: number }[] = [];
    for (let r = 0; r < rounds; r++) {
      // a new client address each round: a counter of its own
      const address = `198.51.100.${r + 1}`;
      const answers = await Promise.all(
        nodes.map((n) =>
          run({
            url: `http://127.0.0.1:${n.info.port}/api/widget/verify`,
            method: 'POST',
            connections: 10,
            amount: perInstance,
            headers: { 'content-type': 'application/json', 'x-widget-version': 'v1', 'x-forwarded-for': address },
            body: JSON.stringify({ api_key: key }),
          }),
        ),
      );
      const admitted = answers.reduce((a, x) => a + x['2xx'], 0);
      results.push({ admitted, sent: perInstance * nodes.length });
    }
    const above = results.map((x) => x.admitted - limit);
    log(
      `rate-limit accuracy: 3 instances, one Redis, one key and address, ${perInstance * 3} verify calls (limit ${limit} a minute) as fast as 30 connections send them, ${rounds} rounds`,
    );
    log(
      `admitted above the limit: ${above.join(', ')} (median ${median(above)}: ${((100 * median(above)) / limit).toFixed(1)}% of the limit, ${((100 * median(above)) / (perInstance * 3)).toFixed(1)}% of the calls sent)`,
    );
    return { limit, sent: perInstance * 3, above };
  } finally {
    for (const n of nodes) n.child.kill('SIGTERM');
    await Promise.all(
      nodes.map((n) => new Promise((r) => (n.child.exitCode === null ? n.child.once('exit', r) : r(0)))),
    );
    await scratch.drop();
  }
}
