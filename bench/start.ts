/**
 * npm run bench -- start
 *
 * The first start of a fresh clone as `npm start` runs it: the service compiled
 * (no build/ yet), an empty PGlite folder, so migrations, the shipped catalog
 * loaded into the database, its search index built, the demo merchant made and
 * its feed matched, until the server prints that it is running; then a second
 * start on the same folder. Each with its memory: every process the start ran,
 * summed, at its peak and after 100 scores.
 * And the catalog's memory in one process (bench/catalog-memory.ts): the heap
 * the catalog and its index hold, at the shipped size and at ten times it.
 * BENCH_ROUNDS rounds (default 3), medians.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './stats.ts';

const ROOT = join(import.meta.dirname, '..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface Start {
  ms: number;
  /** the largest resident memory of every process the start ran, summed, until it served */
  peakMb: number;
  /** the same once it has answered 100 scores */
  steadyMb: number;
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

async function startOnce(dataDir: string): Promise<Start> {
  const port = await freePort();
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['scripts/start.mjs'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        PGLITE_DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
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
        child.once('exit', () => resolve({ ms, peakMb: Math.max(peakMb, steadyMb), steadyMb }));
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

export async function runStartBench() {
  const fresh: Start[] = [];
  const first: Start[] = [];
  const second: Start[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const dir = mkdtempSync(join(tmpdir(), 'sillage-start-'));
    try {
      // a fresh clone: no build/ yet (the widget's files stay: `npm install` leaves none either, but
      // their build is a second and the same for every way of starting)
      if (round === 0) rmSync(join(ROOT, 'build'), { recursive: true, force: true });
      (round === 0 ? fresh : first).push(await startOnce(join(dir, 'pglite')));
      second.push(await startOnce(join(dir, 'pglite')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const mb = (xs: number[]) => `${median(xs).toFixed(0)} MB`;
  const row = (name: string, xs: Start[]) =>
    `| ${name} | ${(median(xs.map((x) => x.ms)) / 1000).toFixed(1)} s (${xs.map((x) => (x.ms / 1000).toFixed(1)).join(', ')}) | ${mb(xs.map((x) => x.peakMb))} | ${mb(xs.map((x) => x.steadyMb))} |`;
  console.log(
    '| start (`npm start`, embedded PGlite) | time to "running" (each round) | peak memory until running, every process summed | after 100 scores |',
  );
  console.log('|---|---|---|---|');
  console.log(row('fresh clone: compiled first, empty folder (migrations, catalog, index, demo)', fresh));
  if (first.length) console.log(row('empty folder, compiled already', first));
  console.log(row('second (same folder)', second));

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
  return { fresh, first, second, memory: mem };
}
