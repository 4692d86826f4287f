/**
 * npm run bench -- start
 *
 * The first start of a fresh clone as `npm start` runs it: an empty PGlite
 * folder, so migrations, the shipped catalog loaded into the database, its
 * search index built, the demo merchant made and its feed matched, until the
 * server prints that it is running; then a second start on the same folder.
 * And the catalog's memory in one process (bench/catalog-memory.ts): the heap
 * the catalog and its index hold, at the shipped size and at ten times it.
 * BENCH_ROUNDS rounds (default 3), medians.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './stats.ts';

const ROOT = join(import.meta.dirname, '..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface Start {
  ms: number;
  rssMb: number;
}

/** Starts server.ts on `dataDir` and resolves once it prints that it is running, with its time and RSS. */
function startOnce(dataDir: string): Promise<Start> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: '',
        PGLITE_DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr?.on('data', (d) => {
      err += d;
    });
    child.stdout?.on('data', (d) => {
      out += d;
      if (!out.includes('is running at')) return;
      const ms = performance.now() - started;
      // the server's own resident memory, as the kernel counts it
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
      child.once('exit', () => resolve({ ms, rssMb: rssKb / 1024 }));
      child.kill('SIGTERM');
      out = '';
    });
    child.once('exit', (code) => {
      if (out !== '') reject(new Error(`server exited with ${code} before it ran: ${err.slice(-2000)}`));
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
  const first: Start[] = [];
  const second: Start[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const dir = mkdtempSync(join(tmpdir(), 'sillage-start-'));
    try {
      first.push(await startOnce(join(dir, 'pglite')));
      second.push(await startOnce(join(dir, 'pglite')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const row = (name: string, xs: Start[]) =>
    `| ${name} | ${(median(xs.map((x) => x.ms)) / 1000).toFixed(1)} s (${xs.map((x) => (x.ms / 1000).toFixed(1)).join(', ')}) | ${median(xs.map((x) => x.rssMb)).toFixed(0)} MB |`;
  console.log('| start (npm start, PGlite folder) | time to "running" (each round) | server RSS then |');
  console.log('|---|---|---|');
  console.log(row('first (empty folder: migrations, catalog, index, demo)', first));
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
  return { first, second, memory: mem };
}
