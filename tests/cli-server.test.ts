import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../cli/admin.ts';
import { route, serviceAnswers } from '../cli/admin-client.ts';
import { signInUser } from '../services/console-users.ts';
import {
  ADMIN_TOKEN,
  adminHeaders,
  buildTestApp,
  closeTestApp,
  createMerchantWithKey,
  LEAD_KEY,
  scoredSession,
  submitLead,
  type TestApp,
  tempFile,
  testConfig,
  verify,
} from './helper.ts';

/**
 * The admin CLI with a server running: its commands go through the server's
 * admin API (what they change is what the server sees at once), print what the
 * direct path prints, and fail as it fails.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ORIGIN = 'https://shop.example';
/** a test that opens a fresh embedded database, or starts the CLI in a process of its own */
const SLOW = 120_000;

let app: TestApp;
let url: string;
let serverPort: string;
/** a port nothing listens on */
let nobody: string;

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
  await app.listen({ port: 0, host: '127.0.0.1' });
  serverPort = String((app.server.address() as AddressInfo).port);
  url = `http://127.0.0.1:${serverPort}`;
  const closed = createServer();
  nobody = String(await listening(closed));
  await new Promise((resolve) => closed.close(resolve));
});
afterAll(() => closeTestApp(app));

/** Runs a command in this process; `direct`: on the server's own database, handed to the CLI. */
async function cli(env: Record<string, string | undefined>, argv: string[], opts: { direct?: boolean } = {}) {
  let out = '';
  let err = '';
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    err += String(chunk);
    return true;
  });
  try {
    const config = testConfig({ REDIS_URL: undefined, PORT: nobody, ...env });
    const code = await run(argv, config, opts.direct ? app.database : undefined);
    return { code, out, err };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
}
const viaServer = (...argv: string[]) => cli({ ADMIN_URL: url }, argv);
const direct = (...argv: string[]) => cli({}, argv, { direct: true });

/** The same command both ways: the same exit code and the same stdout. */
async function bothWays(...argv: string[]) {
  const http = await viaServer(...argv);
  const db = await direct(...argv);
  expect(http.out, argv.join(' ')).toBe(db.out);
  expect(http.code).toBe(db.code);
  return http;
}

/** Runs `npm run admin` as an operator does, in a process of its own. */
function subprocess(env: Record<string, string>, ...argv: string[]) {
  return new Promise<{ code: number; out: string; err: string }>((resolve) => {
    execFile(
      join(ROOT, 'node_modules/.bin/tsx'),
      ['cli/admin.ts', ...argv],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          DATABASE_URL: 'memory:',
          SEED_DEMO: 'false',
          LOG_LEVEL: 'silent',
          LEAD_ENCRYPTION_KEY: LEAD_KEY,
          ADMIN_TOKEN,
          PORT: nobody,
          ...env,
        },
      },
      (error, out, err) => resolve({ code: error ? Number(error.code ?? 1) : 0, out, err }),
    );
  });
}

const merchants = async () =>
  (
    (await app.inject({ method: 'GET', url: '/api/admin/merchants', headers: adminHeaders })).json() as {
      merchants: { slug: string }[];
    }
  ).merchants.map((m) => m.slug);

describe('admin CLI with a server running', () => {
  it('creates a merchant through the server (ADMIN_URL), and lists merchants as the direct path does', async () => {
    const created = await viaServer('merchants:create', '--name', 'Via Server', '--slug', 'via-server');
    expect(created.code).toBe(0);
    expect(created.out).toMatch(/via-server/);
    expect(await merchants()).toContain('via-server');
    await bothWays('merchants:list');
    await bothWays('merchants:list', '--json');
  });

  it('--server names the server as ADMIN_URL does', async () => {
    const created = await cli({}, ['merchants:create', '--name', 'Flag', '--slug', 'via-flag', '--server', url]);
    expect(created.code).toBe(0);
    expect(await merchants()).toContain('via-flag');
  });

  it('finds the local server at PORT, says so on stderr, and goes through it', async () => {
    const r = await cli({ PORT: serverPort }, ['merchants:create', '--name', 'Found', '--slug', 'found-local']);
    expect(r.code).toBe(0);
    expect(r.err).toBe(`via the running server at ${url}\n`);
    expect(await merchants()).toContain('found-local');
  });

  it('a key revoked through the CLI is refused by the widget at once', async () => {
    await viaServer('merchants:create', '--name', 'Keys', '--slug', 'cli-keys');
    const created = await viaServer('keys:create', 'cli-keys', '--mode', 'live', '--origin', ORIGIN, '--json');
    const key = JSON.parse(created.out) as { key: string; id: string };
    const check = () => verify(app, { api_key: key.key }, { origin: ORIGIN });
    expect((await check()).statusCode).toBe(200);
    const revoked = await viaServer('keys:revoke', key.id, '--json');
    expect(JSON.parse(revoked.out)).toMatchObject({ id: key.id, revoked: true });
    const refused = await check();
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('revoked_api_key');
    const origins = await viaServer('keys:origins', key.id, '--origin', 'https://*.shop.example', '--json');
    expect(JSON.parse(origins.out).allowed_origins).toEqual(['https://*.shop.example']);
    await bothWays('keys:list', 'cli-keys');
    await bothWays('keys:list', 'cli-keys', '--json');
  });

  it("erases a merchant through the server: its key refused at once, its rows gone once the server's job ran", async () => {
    await viaServer('merchants:create', '--name', 'Erased', '--slug', 'cli-erased');
    const created = await viaServer('keys:create', 'cli-erased', '--mode', 'live', '--origin', ORIGIN, '--json');
    const key = JSON.parse(created.out) as { key: string };
    const check = () => verify(app, { api_key: key.key }, { origin: ORIGIN });
    expect((await check()).statusCode).toBe(200);
    await expect(viaServer('merchants:erase', 'cli-erased', '--confirm', 'nope')).rejects.toThrow(
      /its slug as confirm/,
    );
    expect((await check()).statusCode).toBe(200);
    const erased = await viaServer('merchants:erase', 'cli-erased', '--confirm', 'cli-erased', '--json');
    expect(JSON.parse(erased.out)).toMatchObject({ status: 'erasing' });
    expect((await check()).json().code).toBe('revoked_api_key');
    await app.jobs.drain();
    expect(
      (await app.inject({ method: 'GET', url: '/api/admin/merchants/cli-erased', headers: adminHeaders })).statusCode,
    ).toBe(404);
  });

  it('syncs a feed file, pins and unpins through the server; lists products as the direct path does', async () => {
    await viaServer('merchants:create', '--name', 'Feed', '--slug', 'cli-feed');
    const file = tempFile(
      'feed.csv',
      'merchant_product_id,name,house,price,currency\n' +
        'a1,Khamrah EDP 100ml,Lattafa,145,SAR\n' +
        'a2,Local Rose Oil,Local House,60,\n' +
        'a3,Mystery,Local House,oops,\n',
    );
    const sync = await viaServer('products:sync', 'cli-feed', file, '--json');
    expect(sync.code).toBe(2);
    expect(JSON.parse(sync.out)).toMatchObject({ received: 3, upserted: 2, rejected: 1 });
    const product = async () =>
      (
        await app.inject({
          method: 'GET',
          url: '/api/admin/merchants/cli-feed/products?status=partial',
          headers: adminHeaders,
        })
      ).json().products as { merchant_product_id: string; pinned: boolean; sillage_perfume_id: string | null }[];
    expect((await product()).map((p) => p.merchant_product_id)).toEqual(['a2']);

    const pin = await viaServer('products:pin', 'cli-feed', 'a2', 'amouage-lyric-woman-edp');
    expect(pin.code).toBe(0);
    const pinned = (
      await app.inject({ method: 'GET', url: '/api/admin/merchants/cli-feed/products', headers: adminHeaders })
    ).json().products as { merchant_product_id: string; pinned: boolean; sillage_perfume_id: string }[];
    expect(pinned.find((p) => p.merchant_product_id === 'a2')).toMatchObject({
      pinned: true,
      sillage_perfume_id: 'amouage-lyric-woman-edp',
    });
    await bothWays('products:list', 'cli-feed');
    await bothWays('products:list', 'cli-feed', '--status', 'matched', '--json');
    expect((await viaServer('products:unpin', 'cli-feed', 'a2')).code).toBe(0);
    expect((await product())[0]).toMatchObject({ merchant_product_id: 'a2', pinned: false });
    await bothWays('products:rematch', 'cli-feed');
    // the same feed again, both ways: the same summary (each sync is a new catalog version)
    const again = JSON.parse((await viaServer('products:sync', 'cli-feed', file, '--json')).out);
    const onDb = JSON.parse((await direct('products:sync', 'cli-feed', file, '--json')).out);
    expect(Object.keys(again)).toEqual(Object.keys(onDb));
    expect({ ...again, catalog_version: onDb.catalog_version }).toEqual(onDb);
    expect((await viaServer('products:sync', 'cli-feed', file)).out).toMatch(/\n {2}row 3 \(a3\): price must be/);
  });

  it('analytics, re-attribution, lead export, erasure and purge print what the direct path prints', async () => {
    const { merchant, key } = await createMerchantWithKey(app, { origins: [ORIGIN] });
    const session = await scoredSession(app, key, ORIGIN);
    const lead = await submitLead(app, key, session, { email: 'reem@example.com' }, ORIGIN);
    expect(lead.statusCode, lead.body).toBe(202);
    const slug = merchant.slug;
    const period = ['--from', '2026-01-01', '--to', new Date(Date.now() + 3600_000).toISOString()];
    await bothWays('analytics', slug, ...period);
    await bothWays('analytics', slug, ...period, '--test', '--json');
    expect((await bothWays('analytics:reattribute', slug)).out).toBe(
      `purchases of ${slug} re-attributed with a 30-day window\n`,
    );
    expect((await bothWays('leads:export', slug)).out).toContain('reem@example.com');
    await bothWays('leads:export', slug, '--json');
    expect((await bothWays('leads:export', slug, '--csv')).out).toContain('reem@example.com');
    expect((await bothWays('leads:purge')).out).toBe('0 lead(s) older than 365 days purged\n');
    expect((await viaServer('leads:erase', slug, '--email', 'reem@example.com')).out).toBe('1 lead(s) erased\n');
    expect((await viaServer('leads:export', slug, '--json')).out).toBe('[]\n');
  });

  it(
    'an error of the API fails as the direct path fails: the same message, exit 1',
    async () => {
      const failure = (r: Promise<unknown>) =>
        r.then(
          () => 'no error',
          (e: Error) => e.message,
        );
      const http = await failure(viaServer('keys:list', 'no-such-shop'));
      expect(http).toMatch(/^No merchant/);
      expect(http).toBe(await failure(direct('keys:list', 'no-such-shop')));

      const [overHttp, onDb] = await Promise.all([
        subprocess({ ADMIN_URL: url }, 'keys:list', 'no-such-shop'),
        subprocess({}, 'keys:list', 'no-such-shop'),
      ]);
      expect(overHttp).toEqual({ code: 1, out: '', err: onDb.err });
      expect(onDb.code).toBe(1);
      expect(onDb.err).toMatch(/^error: No merchant .*\n$/);
    },
    SLOW,
  );

  it(
    'a server that cannot be reached, or drops the connection mid-command, is one clear line, not a stack trace',
    async () => {
      const gone = await subprocess({ ADMIN_URL: `http://127.0.0.1:${nobody}` }, 'merchants:list');
      expect(gone.code).toBe(1);
      expect(gone.err).toBe(`error: could not reach the server at http://127.0.0.1:${nobody} (ECONNREFUSED)\n`);

      const dropping = createServer((req) => req.socket.destroy());
      const port = await listening(dropping);
      try {
        await expect(
          cli({ ADMIN_URL: `http://127.0.0.1:${port}` }, ['merchants:create', '--name', 'X', '--slug', 'x-dropped']),
        ).rejects.toThrow(/could not reach the server at .*the change may or may not have been made/);
      } finally {
        dropping.close();
      }
    },
    SLOW,
  );
});

describe('admin CLI: which way a command goes', () => {
  it(
    'with no server answering, works on the database (no word on stderr)',
    async () => {
      const r = await cli({}, ['merchants:create', '--name', 'Alone', '--slug', 'alone-direct']);
      expect(r).toMatchObject({ code: 0, err: '' });
      expect(r.out).toMatch(/alone-direct/);
      expect(await merchants()).not.toContain('alone-direct');
    },
    SLOW,
  );

  it(
    '--direct works on the database even with the server answering at PORT',
    async () => {
      const r = await cli({ PORT: serverPort }, ['merchants:create', '--name', 'Own', '--slug', 'own-db', '--direct']);
      expect(r).toMatchObject({ code: 0, err: '' });
      expect(await merchants()).not.toContain('own-db');
    },
    SLOW,
  );

  it(
    'recognises our service at PORT, not any HTTP server answering /healthz',
    async () => {
      expect(await serviceAnswers(url)).toBe(true);
      const other = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"status":"ok"}');
      });
      const port = String(await listening(other));
      try {
        expect(await serviceAnswers(`http://127.0.0.1:${port}`)).toBe(false);
        const r = await cli({ PORT: port }, ['merchants:list']);
        expect(r).toMatchObject({ code: 0, err: '' });
      } finally {
        other.close();
      }
    },
    SLOW,
  );

  it('refuses, on the embedded database with a server running, without ADMIN_TOKEN: it says what to set', async () => {
    await expect(cli({ PORT: serverPort, ADMIN_TOKEN: undefined }, ['merchants:list'])).rejects.toThrow(
      /server is running at .* embedded database.*set ADMIN_TOKEN/,
    );
    await expect(cli({ ADMIN_URL: url, ADMIN_TOKEN: undefined }, ['merchants:list'])).rejects.toThrow(
      /ADMIN_TOKEN is not set/,
    );
  });

  it('refuses migrate and catalog:import beside a server on the embedded database, saying to stop it', async () => {
    await expect(cli({ PORT: serverPort }, ['migrate'])).rejects.toThrow(/stop the server.*applies migrations/);
    await expect(cli({ ADMIN_URL: url }, ['catalog:import', 'perfumes.csv'])).rejects.toThrow(/stop the server/);
  });

  it('on PostgreSQL, goes to the database when the token is missing, and for migrate and catalog:import', () => {
    const base = { direct: false, handed: false, named: null, localServer: url, embedded: false, token: false };
    expect(route({ ...base, command: 'merchants:list' })).toEqual({
      to: 'database',
      note: `a server answers at ${url}, but ADMIN_TOKEN is not set: working on the database`,
    });
    expect(route({ ...base, command: 'merchants:list', token: true })).toMatchObject({ to: 'server', url });
    for (const command of ['migrate', 'catalog:import']) {
      expect(route({ ...base, command, token: true })).toEqual({ to: 'database' });
      expect(route({ ...base, command, embedded: true, token: true }).to).toBe('refused');
    }
    expect(route({ ...base, command: 'merchants:list', embedded: true }).to).toBe('refused');
  });
});

describe('admin API: the operations only the CLI had', () => {
  it('re-attributes a merchant and purges expired leads', async () => {
    const { merchant } = await createMerchantWithKey(app);
    const done = await app.inject({
      method: 'POST',
      url: `/api/admin/merchants/${merchant.slug}/analytics/reattribute`,
      headers: adminHeaders,
    });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toEqual({ merchant_id: merchant.id, slug: merchant.slug, attribution_window_days: 30 });
    const missing = await app.inject({
      method: 'POST',
      url: '/api/admin/merchants/no-such-shop/analytics/reattribute',
      headers: adminHeaders,
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('merchant_not_found');
    const purge = await app.inject({ method: 'POST', url: '/api/admin/leads/purge', headers: adminHeaders });
    expect(purge.statusCode).toBe(200);
    expect(purge.json()).toEqual({ purged: 0, retention_days: 365 });
    expect((await app.inject({ method: 'POST', url: '/api/admin/leads/purge' })).statusCode).toBe(401);
  });
});

describe('admin CLI: console users', () => {
  /** `npm run admin -- users:create …` with the password piped in, as an operator scripts it */
  const createUser = (password: string, ...argv: string[]) =>
    new Promise<{ code: number; out: string; err: string }>((resolve) => {
      const child = execFile(
        join(ROOT, 'node_modules/.bin/tsx'),
        ['cli/admin.ts', 'users:create', ...argv],
        {
          cwd: ROOT,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '',
            DATABASE_URL: 'memory:',
            SEED_DEMO: 'false',
            LOG_LEVEL: 'silent',
            LEAD_ENCRYPTION_KEY: LEAD_KEY,
            ADMIN_TOKEN,
            ADMIN_URL: url,
          },
        },
        (error, out, err) => resolve({ code: error ? Number(error.code ?? 1) : 0, out, err }),
      );
      child.stdin?.end(`${password}\n`);
    });

  it(
    'creates an owner through the running server, with the password read from standard input',
    async () => {
      const { merchant } = await createMerchantWithKey(app);
      const made = await createUser(
        'a long enough secret',
        'Owner@Console.Example',
        '--role',
        'owner',
        '--merchant',
        merchant.slug,
      );
      expect(made.err).toBe('');
      expect(made.code).toBe(0);
      expect(made.out).toContain('owner@console.example');
      const user = await signInUser(app.db, 'owner@console.example', 'a long enough secret');
      expect(user).toMatchObject({ role: 'owner', merchantId: merchant.id });
      const short = await createUser('short', 'staff@console.example', '--role', 'staff', '--merchant', merchant.slug);
      expect(short.code).toBe(1);
      expect(short.err).toMatch(/error: .*password/);
      const again = await createUser('a long enough secret', 'owner@console.example', '--role', 'operator');
      expect(again.code).toBe(1);
      expect(again.err).toMatch(/already exists/);
    },
    SLOW,
  );
});
