import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
/** the V8 settings `npm start` gives node: a small young generation, WebAssembly kept at its first tier */
const NODE_FLAGS = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start.match(
    /^exec node (.*) scripts\/start\.mjs$/,
  )?.[1] ?? ''
)
  .split(' ')
  .filter(Boolean);
const dir = mkdtempSync(join(tmpdir(), 'sillage-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * Runs `npm start`, the README's command, with a clean environment and its own data folder: npm runs
 * `exec node scripts/start.mjs`, which compiles the service to build/ when it is missing or older than
 * its sources, then serves it as plain `node` in that one process.
 */
function start(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
} {
  const npm = process.env.npm_execpath;
  // --silent: npm's own lines (the script it runs, a failed script's report) left out of the output
  const child = spawn(npm ? process.execPath : 'npm', [...(npm ? [npm] : []), '--silent', 'start'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** The processes whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        // the parent's pid is the 4th field of /proc/<pid>/stat, after the command in parentheses
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function waitFor(check: () => boolean, ms: number) {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('npm start on the embedded default', () => {
  it('serves /healthz, prints a working demo key, and shuts down cleanly on SIGTERM', async () => {
    const port = await freePort();
    const dataDir = join(dir, 'pglite');
    const s = start({ PORT: String(port), PGLITE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    await waitFor(() => /test key: pk_test_\w+/.test(s.output()), 45_000);
    const key = /test key: (pk_test_\w+)/.exec(s.output())?.[1];
    expect(s.output()).toContain(`curl -s http://127.0.0.1:${port}/api/widget/verify`);
    expect(s.output()).toMatch(/demo product feed: 46 products, \d+ matched/);
    expect(s.output()).toContain(
      `demo storefront: http://127.0.0.1:${port}/demo (English: http://127.0.0.1:${port}/demo?lang=en)`,
    );
    const shop = await fetch(`http://127.0.0.1:${port}/demo?lang=en`);
    expect(shop.status).toBe(200);
    expect(await shop.text()).toContain(`data-key="${key}"`);

    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const res = await fetch(`http://127.0.0.1:${port}/api/widget/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: `http://127.0.0.1:${port}` },
      body: JSON.stringify({ api_key: key }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { merchant: { slug: string } }).merchant.slug).toBe('demo');

    // the curl line it prints for a recommendation works too
    const line = /curl -s (\S+\/api\/widget\/score) .* -d '(.+)'/.exec(s.output());
    const scored = await fetch(line?.[1] ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: line?.[2],
    });
    expect(scored.status).toBe(200);
    const answer = (await scored.json()) as { recommendations: unknown[]; test_mode: boolean };
    expect(answer.recommendations.length).toBe(6);
    expect(answer.test_mode).toBe(true);
    // and the one for a Khamrah lover, as the README shows it: each pick says what it shares
    const loved = /curl -s (\S+\/api\/widget\/score) .* -d '(.+"loved_perfumes":\["lattafa-khamrah-edp"\].+)'/.exec(
      s.output(),
    );
    const lovedAnswer = await fetch(loved?.[1] ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: loved?.[2],
    });
    expect(lovedAnswer.status).toBe(200);
    const picks = ((await lovedAnswer.json()) as { recommendations: { similar_to?: unknown }[] }).recommendations;
    expect(picks.length).toBeGreaterThan(0);
    expect(picks.some((p) => p.similar_to !== undefined)).toBe(true);
    // everything the embedded database keeps is inside its folder: nothing beside it but the lock
    expect(readdirSync(dir).filter((f) => f !== 'pglite.lock')).toEqual(['pglite']);
    expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(['demo-key', 'demo-console', 'lead-key']));

    // one process serves: npm's child is the service itself (no shell, no loader between them), and
    // the service started no process of its own (no compiler, no esbuild service: the widget's files
    // were built before it started)
    const [service, ...others] = childrenOf(s.child.pid as number);
    expect(others).toEqual([]);
    expect(readFileSync(`/proc/${service}/cmdline`, 'utf8').split('\0')).toEqual(
      expect.arrayContaining([expect.stringMatching(/scripts\/start\.mjs$/), ...NODE_FLAGS]),
    );
    expect(childrenOf(service as number)).toEqual([]);

    // a SIGTERM to `npm start` stops the service: nothing is left holding the port or the database
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    expect(existsSync(`/proc/${service}`)).toBe(false);
    expect(existsSync(`${dataDir}.lock`)).toBe(false);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();

    // the second start reuses the data and prints the same key
    const again = start({ PORT: String(port), PGLITE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    await waitFor(() => /test key: pk_test_\w+/.test(again.output()), 45_000);
    expect(again.output()).toContain(`test key: ${key}`);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  }, 120_000);

  it("the deploy files start the service with `npm start`'s memory settings (docs/operations.md, Footprint)", () => {
    expect(NODE_FLAGS).toEqual(['--max-semi-space-size=4', '--liftoff-only']);
    const docker = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(docker).toContain(`CMD ${JSON.stringify(['node', ...NODE_FLAGS, 'build/server.js']).replaceAll(',', ', ')}`);
    const systemd = readFileSync(join(ROOT, 'deploy', 'systemd', 'sillage@.service'), 'utf8');
    expect(systemd).toContain(`node ${NODE_FLAGS.join(' ')} build/server.js`);
  });

  it('the compiled service (build/) has every file it loads, and loads no compiler', () => {
    // compiled by the start above (or now, when it was up to date already and this runs alone)
    if (!existsSync(join(ROOT, 'build', 'server.js')))
      execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT });
    const files = (function walk(d: string): string[] {
      return readdirSync(d, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.js') ? [join(d, e.name)] : [],
      );
    })(join(ROOT, 'build'));
    expect(files.length).toBeGreaterThan(150);
    const missing: string[] = [];
    const compilers: string[] = [];
    let imports = 0;
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      // every module imported or started by a relative path, statically, dynamically or as a worker
      for (const m of text.matchAll(/(?:from |import\(|new URL\()["'](\.{1,2}\/[^"']+)["']/g)) {
        const target = join(dirname(f), m[1] as string);
        if (!existsSync(target)) missing.push(`${f.slice(ROOT.length + 1)} -> ${m[1]}`);
      }
      // statically (the widget's builder imports esbuild only when it builds: in a process of its own)
      if (/from ["'](tsx|typescript|esbuild)[/"']/.test(text)) compilers.push(f.slice(ROOT.length + 1));
      imports += [...text.matchAll(/(?:from |import\()["']\.{1,2}\//g)].length;
    }
    expect(missing).toEqual([]);
    expect(compilers).toEqual([]);
    // the files import each other by relative paths, all of which were checked above
    expect(imports).toBeGreaterThan(500);
    // the matcher's worker is started by a path, not an import: its compiled file is there
    expect(existsSync(join(ROOT, 'build', 'plugins', 'app', 'inline-matcher.worker.js'))).toBe(true);
  }, 60_000);

  it('a start that fails after opening the database leaves no lock behind', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const dataDir = join(dir, 'failed', 'pglite');
    const s = start({ PORT: String(port), PGLITE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', SEED_DEMO: 'false' });
    expect(await s.exited).toBe(1);
    taken.close();
    expect(s.output()).toContain(`Could not listen on 127.0.0.1:${port}`);
    expect(existsSync(`${dataDir}.lock`)).toBe(false);
  }, 120_000);

  it('stops with one line naming a bad variable', async () => {
    const s = start({ PORT: 'eighty' });
    expect(await s.exited).toBe(1);
    expect(s.output().trim()).toMatch(/^Invalid configuration: PORT .*$/);
  }, 30_000);
});
