/**
 * npm run bench -- start
 *
 * The first start of a fresh clone as `npm start` runs it: the service compiled
 * (no build/ yet), an empty PGlite folder, so migrations, the shipped catalog
 * loaded into the database, its search index built, the demo merchant made and
 * its feed matched, until the server prints that it is running; then a second
 * start on the same folder, and a start on another empty folder once compiled.
 * Each with its memory: every process the start ran, summed, at its peak, after
 * 100 scores, and (the first round's fresh start) a minute later, once the
 * matcher's worker has stopped. With BENCH_DATABASE_URL, the same on PostgreSQL
 * (an empty scratch database, then a second start on it), alone and with Redis
 * (BENCH_REDIS_URL, default the local one): the service's process only.
 * And the catalog's memory in one process (bench/catalog-memory.ts): the heap
 * the catalog and its index hold, at the shipped size and at ten times it.
 * BENCH_ROUNDS rounds (default 3), medians.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase } from '../db/scratch.ts';
import { median } from './stats.ts';

const ROOT = join(import.meta.dirname, '..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** node's settings in `npm start` (package.json), so that this starts the service as it does */
const NODE_FLAGS = (
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.match(
    /^exec node (.*) scripts\/start\.mjs$/,
  )?.[1] ?? ''
)
  .split(' ')
  .filter(Boolean);

interface Start {
  ms: number;
  /** the largest resident memory of every process the start ran, summed, until it served */
  peakMb: number;
  /** the same once it has answered 100 scores */
  steadyMb: number;
  /** the same a while after (when asked): the matcher worker stopped */
  idleMb?: number | undefined;
}

/** Every process below `pid`, itself included. */
function tree(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(d)]);
    } catch {
      // gone meanwhile
    }
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...(parents.get(out[i] as number) ?? []));
  return out;
}

/** The resident memory of `pid` and every process below it, summed, in MB. */
function treeRssMb(pid: number): number {
  let kb = 0;
  for (const p of tree(pid)) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return kb / 1024;
}

/**
 * Starts the service as `npm start` does (`node scripts/start.mjs`, which compiles first when build/
 * is missing or stale) on `dataDir`; resolves once it prints that it is running and has answered 100
 * scores, with its time to running and the memory of every process it ran: the peak (sampled every
 * 20 ms) and after the scores.
 */
async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function startOnce(dataDir: string, extraEnv: Record<string, string> = {}, idleMs = 0): Promise<Start> {
  const port = await freePort();
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...NODE_FLAGS, 'scripts/start.mjs'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        PGLITE_DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let peakMb = 0;
    const sampler = setInterval(() => {
      peakMb = Math.max(peakMb, treeRssMb(child.pid as number));
    }, 20);
    let out = '';
    let err = '';
    let running = false;
    child.stderr?.on('data', (d) => {
      err += d;
    });
    child.stdout?.on('data', async (d) => {
      out += d;
      if (running || !/Lattafa Khamrah:\n\s+curl -s (\S+) .* -d '(.+)'/.test(out)) return;
      running = true;
      const ms = performance.now() - started;
      const [, url, body] = /Lattafa Khamrah:\n\s+curl -s (\S+) .* -d '(.+)'/.exec(out) as RegExpExecArray;
      try {
        for (let i = 0; i < 100; i++) {
          const r = await fetch(url as string, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
          });
          if (r.status !== 200) throw new Error(`score answered ${r.status}`);
          await r.arrayBuffer();
        }
        const steadyMb = treeRssMb(child.pid as number);
        clearInterval(sampler);
        // and once the matcher's worker has stopped for want of work (plugins/app/inline-matcher.ts)
        if (idleMs) await new Promise((r) => setTimeout(r, idleMs));
        const idleMb = idleMs ? treeRssMb(child.pid as number) : undefined;
        child.once('exit', () => resolve({ ms, peakMb: Math.max(peakMb, steadyMb), steadyMb, idleMb }));
        child.kill('SIGTERM');
      } catch (e) {
        clearInterval(sampler);
        child.kill('SIGKILL');
        reject(e);
      }
    });
    child.once('exit', (code) => {
      clearInterval(sampler);
      if (!running) reject(new Error(`server exited with ${code} before it ran: ${err.slice(-2000)}`));
    });
  });
}

function memory(perfumes: string): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/catalog-memory.ts', perfumes], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout?.on('data', (d) => {
      out += d;
    });
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as Record<string, number>) : reject(new Error(`exit ${code}`)),
    );
  });
}

/** the matcher worker's idle time (plugins/app/inline-matcher.ts MATCHER_IDLE_MS) and a few seconds */
const AFTER_IDLE_MS = 65_000;

export async function runStartBench() {
  const fresh: Start[] = [];
  const first: Start[] = [];
  const second: Start[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const dir = mkdtempSync(join(tmpdir(), 'sillage-start-'));
    try {
      // a fresh clone: no build/ yet (the widget's files stay: `npm install` leaves none either, but
      // their build is a second and the same for every way of starting)
      rmSync(join(ROOT, 'build'), { recursive: true, force: true });
      fresh.push(await startOnce(join(dir, 'pglite'), {}, round === 0 ? AFTER_IDLE_MS : 0));
      second.push(await startOnce(join(dir, 'pglite')));
      first.push(await startOnce(join(dir, 'other')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const mb = (xs: number[]) => `${median(xs).toFixed(0)} MB`;
  const row = (name: string, xs: Start[]) =>
    `| ${name} | ${(median(xs.map((x) => x.ms)) / 1000).toFixed(1)} s (${xs.map((x) => (x.ms / 1000).toFixed(1)).join(', ')}) | ${mb(xs.map((x) => x.peakMb))} | ${mb(xs.map((x) => x.steadyMb))} | ${xs.some((x) => x.idleMb) ? mb(xs.flatMap((x) => (x.idleMb ? [x.idleMb] : []))) : ''} |`;
  console.log(
    '| start (`npm start`) | time to "running" (each round) | peak memory until running, every process summed | after 100 scores | a minute later |',
  );
  console.log('|---|---|---|---|---|');
  console.log(row('embedded, fresh clone: compiled first, empty folder (migrations, catalog, index, demo)', fresh));
  console.log(row('embedded, empty folder, compiled already', first));
  console.log(row('embedded, second (same folder)', second));
  const pg: Record<string, Start[]> = {};
  const url = process.env.BENCH_DATABASE_URL;
  if (url) {
    // PostgreSQL (a scratch database a round) and with Redis: the service's own process only, the
    // servers' memory apart; the demo seeded so that the same scores are asked
    for (const [name, redis] of [
      ['PostgreSQL', {}],
      ['PostgreSQL and Redis', { REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379' }],
    ] as const) {
      pg[`${name}, empty database`] = [];
      pg[`${name}, second`] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const scratch = await createScratchDatabase(url, 'sillage_bench_start');
        await scratch.database.close();
        const env = {
          DATABASE_URL: scratch.url,
          SEED_DEMO: 'true',
          LEAD_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
          ...redis,
        };
        try {
          pg[`${name}, empty database`]?.push(await startOnce('unused', env));
          pg[`${name}, second`]?.push(await startOnce('unused', env));
        } finally {
          await scratch.drop();
        }
      }
    }
    for (const [name, xs] of Object.entries(pg)) console.log(row(name, xs));
  }

  const sizes = ['shipped', '6650', '20000'];
  const mem: Record<string, Record<string, number>> = {};
  console.log('\n| catalog | perfumes | records (MB) | snapshot: rows, maps, index (MB) | index built (ms) |');
  console.log('|---|---|---|---|---|');
  for (const size of sizes) {
    const runs: Record<string, number>[] = [];
    for (let round = 0; round < ROUNDS; round++) runs.push(await memory(size));
    const m = (k: string) => median(runs.map((r) => r[k] as number));
    mem[size] = {
      perfumes: m('perfumes'),
      recordsMb: m('recordsMb'),
      snapshotMb: m('snapshotMb'),
      indexMs: m('indexMs'),
    };
    console.log(
      `| ${size === 'shipped' ? 'shipped' : 'synthetic'} | ${m('perfumes')} | ${m('recordsMb').toFixed(1)} | ${m('snapshotMb').toFixed(1)} | ${m('indexMs').toFixed(0)} |`,
    );
  }
  return { fresh, first, second, ...pg, memory: mem };
}
