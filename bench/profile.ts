/**
 * Where a score request's time goes, by stage:
 *   npm run bench -- profile
 * The service's main thread is profiled (node:inspector, started after the
 * warm-up) under score load only (32 connections, BENCH_SECONDS, 8 s), in the configuration
 * BENCH_PROFILE_CONFIG names (pglite | postgres | postgres+redis; postgres+redis
 * by default). Each sample of the service's main thread is given to the
 * innermost frame of its stack that belongs to a stage (`STAGES`: the HTTP
 * parser and routing, body parsing, validation, rate limit, key, scoring,
 * session log, writing the answer, metrics…); samples in shared helpers (a
 * cache, a timer) go to the stage that called them. Printed: each stage's
 * share of the busy time and its µs per request (the share × the main
 * thread's CPU per request, measured from /proc over the same run).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase } from '../db/scratch.ts';
import { startBenchServer } from './child.ts';
import { mainThreadCpuMicros, requestStream, run } from './score-endpoint.ts';

interface CallFrame {
  functionName: string;
  url: string;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Stages, tried in this order on each frame from the innermost out; the first that matches takes the sample. */
export const STAGES: [stage: string, matches: (f: CallFrame) => boolean][] = [
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  ['metrics', (f) => /plugins\/app\/metrics|http\/series-metrics|prom-client/.test(f.url)],
  [
    'session log (queue and database client)',
    (f) =>
      /services\/sessions|plugins\/app\/sessions|lib\/batch-writer|\/db\/|drizzle-orm|\/postgres\/|pglite/.test(f.url),
  ],
  [
    'rate limit',
    (f) => /@fastify\/rate-limit|external\/rate-limit|shared-counter|window-counter|ioredis|toad-cache/.test(f.url),
  ],
  ['key and origin', (f) => /plugins\/app\/widget-key|\/auth\/|@fastify\/cors|body-guard/.test(f.url)],
  [
    'score and its answer (engine, cached products, answer bytes)',
    (f) => /\/scoring\/|score-answers|routes\/widget\/score|json-template|\/matching\/|\/catalog\//.test(f.url),
  ],
  ['body parsing', (f) => /secure-json-parse|json-body|content-type-parser/.test(f.url)],
  ['validation', (f) => /^validate\d*$/.test(f.functionName) || /fastify\/lib\/validation|ajv/.test(f.url)],
  [
    'writing the answer (headers, socket write, kernel)',
    (f) =>
      /_http_outgoing|stream_base_commons|end-of-turn-writes|fastify\/lib\/reply|node:net|streams\/writable/.test(
        f.url,
      ) ||
      f.functionName === 'writev' ||
      f.functionName === 'writeBuffer',
  ],
  [
    'HTTP parsing, routing, hooks (Fastify, Node)',
    (f) => /_http_server|_http_incoming|_http_common|find-my-way|fastify\/|node:events|streams\/readable/.test(f.url),
  ],
];

/** Self time per stage (µs), idle and program time left out, from a .cpuprofile of the main thread. */
export function stagesOf(profile: CpuProfile): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stageOf = new Map<number, string>();
  const resolve = (id: number): string => {
    const known = stageOf.get(id);
    if (known) return known;
    let stage = 'other';
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = (byId.get(cur) as ProfileNode).callFrame;
      const hit = STAGES.find(([, m]) => m(f));
      if (hit) {
        stage = hit[0];
        break;
      }
    }
    stageOf.set(id, stage);
    return stage;
  };
  const out = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const f = (byId.get(id) as ProfileNode).callFrame;
    if (f.functionName === '(idle)' || f.functionName === '(program)' || f.functionName === '(root)') return;
    const stage = resolve(id);
    out.set(stage, (out.get(stage) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return out;
}

export async function runProfileBench(log: (s: string) => void = console.log) {
  const config = process.env.BENCH_PROFILE_CONFIG ?? 'postgres+redis';
  const seconds = Number(process.env.BENCH_SECONDS) || 8;
  const dir = mkdtempSync(join(tmpdir(), 'bench-prof-'));
  const env: Record<string, string> = { BENCH_DATABASE_URL: '', BENCH_REDIS_URL: '' };
  let drop = async () => {};
  if (config === 'pglite') env.BENCH_PGLITE_DIR = join(dir, 'pglite');
  else {
    const scratch = await createScratchDatabase(
      process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test',
      'sillage_prof',
    );
    await scratch.database.close();
    env.BENCH_DATABASE_URL = scratch.url;
    if (config === 'postgres+redis') env.BENCH_REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
    drop = scratch.drop;
  }
  const out = join(dir, 'main.cpuprofile');
  const service = await startBenchServer<{ port: number; key: string }>('service', { ...env, BENCH_PROFILE_OUT: out });
  let requests = 0;
  let mainCpu = 0;
  try {
    const opts = {
      url: `http://127.0.0.1:${service.info.port}/api/widget/score`,
      connections: 32,
      duration: seconds,
      requests: requestStream(service.info.key, '/api/widget/score'),
    };
    await run({ ...opts, duration: 2 });
    service.child.kill('SIGUSR2');
    const c0 = mainThreadCpuMicros(service.child.pid);
    const res = await run(opts);
    mainCpu = mainThreadCpuMicros(service.child.pid) - c0;
    requests = res.requests.total;
  } finally {
    service.child.kill('SIGTERM');
    await new Promise((r) => service.child.once('exit', r));
    await drop();
  }
  const stages = stagesOf(JSON.parse(readFileSync(out, 'utf8')) as CpuProfile);
  rmSync(dir, { recursive: true, force: true });
  const busy = [...stages.values()].reduce((a, b) => a + b, 0);
  const perRequest = mainCpu / Math.max(1, requests);
  log(
    `profile: ${config}, score only, 32 connections, ${seconds} s; main thread ${perRequest.toFixed(1)} µs CPU per request`,
  );
  log('| stage | share of busy time | µs per request |');
  log('|---|---|---|');
  const rows = [...stages].sort((a, b) => b[1] - a[1]);
  for (const [stage, t] of rows) {
    log(`| ${stage} | ${((100 * t) / busy).toFixed(1)}% | ${((perRequest * t) / busy).toFixed(1)} |`);
  }
  return { config, perRequest, stages: Object.fromEntries(rows.map(([s, t]) => [s, t / busy])) };
}
