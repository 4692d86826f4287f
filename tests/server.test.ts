import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

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

/** Starts server.ts the way `npm start` does, with a clean environment and its own data folder. */
function start(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
    cwd: join(import.meta.dirname, '..'),
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

    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    expect(existsSync(`${dataDir}.lock`)).toBe(false);

    // the second start reuses the data and prints the same key
    const again = start({ PORT: String(port), PGLITE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    await waitFor(() => /test key: pk_test_\w+/.test(again.output()), 45_000);
    expect(again.output()).toContain(`test key: ${key}`);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  }, 120_000);

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
