/**
 * POST /api/widget/score under load, beside a bare Fastify route:
 *   npm run bench -- endpoint
 * The service and the bare route each run in their own process; autocannon
 * (this process) sends 50 concurrent connections for 10 s, five rounds
 * (BENCH_ROUNDS) of bare, control and score; the ratio is the median of the
 * rounds' ratios, the other figures medians of the rounds. The control is the
 * bare route writing its answers at the end of each event-loop turn, as the
 * service's score route does (http/end-of-turn-writes.ts): the score route's
 * ratio to it shows what that choice alone is worth. Score
 * requests cycle through 50 quizzes and 20,000 shopper addresses
 * (X-Forwarded-For from a trusted proxy), so the per-key-and-address rate
 * limit is exercised but not hit: one shop key, many shoppers (BENCH_SESSION_IDS=1: each with
 * a session id of its own, as the widget sends). The bare route
 * answers a fixed body of the same size as a score answer. Alongside: CPU
 * time per request of each server, of PostgreSQL and of the load generator.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startBenchServer } from './child.ts';
import { benchQuizzes } from './engine.ts';
import { median } from './stats.ts';

/** shopper addresses the score requests rotate through (BENCH_SHOPPERS) */
const SHOPPERS = Number(process.env.BENCH_SHOPPERS) || 20_000;
/**
 * BENCH_SESSION_IDS=1: every request carries a session id never sent before, as a widget's first
 * score does: whose it is is read from the database (routes/widget/score.ts)
 */
const SESSION_IDS = process.env.BENCH_SESSION_IDS === '1';
const SESSION_PLACEHOLDER = '00000000-0000-4000-8000-000000000000';

/**
 * BENCH_GULF=1: every quiz also asks the Gulf shopper's answers (a gift, what lasts in heat,
 * layering pairs and a budget: docs/gulf-shelf.md), to compare with a run without
 */
const GULF = process.env.BENCH_GULF === '1';

export const QUIZ_ANSWERS = benchQuizzes(50, 11).map((q) => ({
  families: q.families,
  accord_ratings: Object.fromEntries(q.ratings),
  ...(q.season ? { season: q.season } : {}),
  ...(q.occasion ? { occasion: q.occasion } : {}),
  ...(GULF ? { gift: true, lasts_in_heat: true, layering: true, budget: { max: 600 } } : {}),
}));

/**
 * The request stream of both routes: one per shopper address (the last hop of
 * X-Forwarded-For from a trusted proxy), cycling through the quizzes and both
 * locales. Built in advance and identical for the bare route but for its path,
 * so the load generator — on the same two cores — spends the same per request.
 */
export function requestStream(key: string, path: string): autocannon.Request[] {
  const pool = Array.from({ length: SHOPPERS }, (_, shopper) => ({
    method: 'POST' as const,
    path,
    headers: {
      'content-type': 'application/json',
      'x-widget-version': 'v1',
      'x-forwarded-for': `10.${(shopper >> 16) & 255}.${(shopper >> 8) & 255}.${shopper & 255}`,
    },
    body: JSON.stringify({
      api_key: key,
      ...(SESSION_IDS ? { session_id: SESSION_PLACEHOLDER } : {}),
      quiz: QUIZ_ANSWERS[shopper % QUIZ_ANSWERS.length],
      locale: shopper % 3 ? 'ar' : 'en',
    }),
  }));
  let n = 0;
  if (SESSION_IDS) {
    return [
      {
        setupRequest: (req) => {
          const next = pool[n++ % pool.length] as (typeof pool)[number];
          return { ...req, ...next, body: next.body.replace(SESSION_PLACEHOLDER, randomUUID()) };
        },
      },
    ];
  }
  return [{ setupRequest: (req) => ({ ...req, ...pool[n++ % pool.length] }) }];
}

/** CPU time (user + system, µs) of a process, from /proc; 0 where there is no /proc */
export function cpuMicros(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * (1e6 / CLOCK_TICKS);
  } catch {
    return 0;
  }
}
const CLOCK_TICKS = 100;

/** CPU time (µs) of a process's main thread alone (the event loop that answers requests), from /proc */
export function mainThreadCpuMicros(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * (1e6 / CLOCK_TICKS);
  } catch {
    return 0;
  }
}

/** CPU time of a process split into user and kernel (system) µs, from /proc */
export function cpuSplitMicros(pid: number | undefined): { user: number; system: number } {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return { user: Number(fields[11]) * (1e6 / CLOCK_TICKS), system: Number(fields[12]) * (1e6 / CLOCK_TICKS) };
  } catch {
    return { user: 0, system: 0 };
  }
}

/** CPU time of every local PostgreSQL process (the session writes land there) */
export function postgresCpuMicros(): number {
  let total = 0;
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += cpuMicros(Number(pid));
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** autocannon as a promise; shared by the endpoint and load benchmarks */
export function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/** rounds of the endpoint bench (BENCH_ROUNDS): each runs bare, control, then score */
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 5;

export async function runEndpointBench(log: (s: string) => void = console.log, seconds = 10, rounds = ROUNDS) {
  const service = await startBenchServer<{ port: number; key: string }>('service');
  const { port, key } = service.info;
  const base = `http://127.0.0.1:${port}/api/widget/score`;
  const sample = await fetch(base, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-widget-version': 'v1' },
    body: JSON.stringify({ api_key: key, quiz: QUIZ_ANSWERS[0] }),
  });
  const sampleBody = await sample.text();
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  writeFileSync(join(dir, 'body.json'), sampleBody);
  const bare = await startBenchServer<{ port: number }>('bare', { BARE_BODY_FILE: join(dir, 'body.json') });
  const barePort = bare.info.port;
  // the control: the same bare route, writing its answers at the end of each turn as the service does
  const batched = await startBenchServer<{ port: number }>('bare', {
    BARE_BODY_FILE: join(dir, 'body.json'),
    BENCH_BARE_END_OF_TURN: '1',
  });

  const scoreOpts: autocannon.Options = {
    url: base,
    connections: 50,
    duration: seconds,
    requests: requestStream(key, '/api/widget/score'),
  };
  const bareOpts: autocannon.Options = {
    url: `http://127.0.0.1:${barePort}/bare`,
    connections: 50,
    duration: seconds,
    requests: requestStream(key, '/bare'),
  };
  const batchedOpts: autocannon.Options = { ...bareOpts, url: `http://127.0.0.1:${batched.info.port}/bare` };
  const rows: {
    kind: string;
    rps: number;
    p50: number;
    p99: number;
    non2xx: number;
    /** CPU µs per request: the route's process, PostgreSQL's processes, this load generator */
    cpu: { server: number; postgres: number; loadgen: number };
  }[] = [];
  try {
    await run({ ...scoreOpts, duration: 2 }); // warm-up: compile the catalog, fill caches, JIT
    await run({ ...bareOpts, duration: 2 });
    await run({ ...batchedOpts, duration: 2 });
    for (let r = 0; r < rounds; r++) {
      for (const [kind, opts, server] of [
        ['bare', bareOpts, bare.child],
        ['batched', batchedOpts, batched.child],
        ['score', scoreOpts, service.child],
      ] as const) {
        const before = { server: cpuMicros(server.pid), pg: postgresCpuMicros(), gen: process.cpuUsage() };
        const res = await run(opts);
        const gen = process.cpuUsage(before.gen);
        const per = (us: number) => Math.round(us / Math.max(1, res.requests.total));
        rows.push({
          kind,
          rps: res.requests.average,
          p50: res.latency.p50,
          p99: res.latency.p99,
          non2xx: res.non2xx + res.errors,
          cpu: {
            server: per(cpuMicros(server.pid) - before.server),
            postgres: per(postgresCpuMicros() - before.pg),
            loadgen: per(gen.user + gen.system),
          },
        });
      }
    }
  } finally {
    service.child.kill('SIGTERM');
    bare.child.kill('SIGTERM');
    batched.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
  const of = (kind: string, f: (r: (typeof rows)[number]) => number) =>
    median(rows.filter((r) => r.kind === kind).map(f));
  const figures = (kind: string) => ({
    rps: of(kind, (r) => r.rps),
    p50: of(kind, (r) => r.p50),
    p99: of(kind, (r) => r.p99),
  });
  const result = {
    bodyBytes: Buffer.byteLength(sampleBody),
    bare: figures('bare'),
    batched: figures('batched'),
    score: figures('score'),
    score_non2xx: rows.filter((r) => r.kind === 'score').reduce((a, r) => a + r.non2xx, 0),
    rounds: rows,
  };
  // The machine is shared: its speed drifts from one minute to the next. Each round's
  // score run follows its bare runs, so the ratio is taken per round, then the median.
  const bareRounds = rows.filter((r) => r.kind === 'bare');
  const batchedRounds = rows.filter((r) => r.kind === 'batched');
  const scoreRounds = rows.filter((r) => r.kind === 'score');
  const perRound = scoreRounds.map((r, i) => r.rps / (bareRounds[i]?.rps ?? Number.NaN));
  const ratio = median(perRound);
  const perRoundBatched = scoreRounds.map((r, i) => r.rps / (batchedRounds[i]?.rps ?? Number.NaN));
  const ratioBatched = median(perRoundBatched);
  log(
    `endpoint: 50 connections, ${seconds} s x ${rounds} rounds, answer ${result.bodyBytes} bytes, 1,000 synced products`,
  );
  log('| route | requests/s (median) | p50 ms | p99 ms |');
  log('|---|---|---|---|');
  log(`| bare Fastify, fixed body | ${Math.round(result.bare.rps)} | ${result.bare.p50} | ${result.bare.p99} |`);
  log(
    `| bare Fastify, fixed body, end-of-turn writes (control) | ${Math.round(result.batched.rps)} | ${result.batched.p50} | ${result.batched.p99} |`,
  );
  log(`| POST /api/widget/score | ${Math.round(result.score.rps)} | ${result.score.p50} | ${result.score.p99} |`);
  log(
    `ratio score/bare: ${ratio.toFixed(2)} (rounds: ${perRound.map((r) => r.toFixed(2)).join(', ')}); non-2xx answers during score runs: ${result.score_non2xx}`,
  );
  log(
    `ratio score/control (both writing at the end of each turn): ${ratioBatched.toFixed(2)} (rounds: ${perRoundBatched.map((r) => r.toFixed(2)).join(', ')})`,
  );
  const cpu = (kind: string, k: 'server' | 'postgres' | 'loadgen') => of(kind, (r) => r.cpu[k]);
  // The service's CPU per request as a multiple of the bare route's, within each round:
  // steadier than the ratio of requests per second on a shared machine (docs/benchmarks.md).
  const cpuRounds = scoreRounds.map((r, i) => r.cpu.server / (bareRounds[i]?.cpu.server || Number.NaN));
  const cpuQuotient = median(cpuRounds);
  log(
    `CPU µs per request (median; Linux /proc): bare route ${cpu('bare', 'server')}, load generator ${cpu('bare', 'loadgen')}; ` +
      `control ${cpu('batched', 'server')}; ` +
      `score route ${cpu('score', 'server')}, PostgreSQL ${cpu('score', 'postgres')}, load generator ${cpu('score', 'loadgen')}`,
  );
  log(
    `service CPU per request, score ÷ bare: ${cpuQuotient.toFixed(2)} (rounds: ${cpuRounds.map((q) => q.toFixed(2)).join(', ')})`,
  );
  return { ...result, ratio, ratioBatched, cpuQuotient };
}
