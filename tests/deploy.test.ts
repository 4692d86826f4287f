import { execFile, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BODY_LIMIT } from '../app.ts';
import { loadConfig } from '../config.ts';
import { LOOKUP_MAX_BYTES, SCORE_MAX_BYTES, VERIFY_MAX_BYTES } from '../contracts/widget.ts';
import { MAX_REQUEST_BYTES } from '../events/validate.ts';
import { WIDGET_RATE_LIMITS } from '../plugins/external/rate-limit.ts';
import { CONSOLE_FORM_LIMIT } from '../routes/console/index.ts';
import {
  PLATFORM_WEBHOOK_MAX_BYTES,
  SHOPIFY_WEBHOOK_MAX_BYTES,
  ZID_WEBHOOK_MAX_BYTES,
} from '../routes/platforms/shared.ts';
import { IMMUTABLE_CACHE, STABLE_CACHE } from '../routes/widget-assets.ts';
import { WIDGET_DIST } from '../widget/build.ts';
import { ADMIN_TOKEN, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

/**
 * deploy/: the Dockerfile, the systemd unit and the nginx config. The static
 * checks always run; where nginx is installed the config is run for real in
 * front of the service (adapted: free loopback ports, no TLS, temporary
 * paths) and requests go through it.
 */

const ROOT = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

function which(name: string): string | null {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : null;
}

const NGINX =
  [process.env.NGINX_PATH, '/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'].find(
    (p) => p && existsSync(p),
  ) ?? which('nginx');
if (!NGINX) {
  console.log(
    'nginx is not installed: the requests through deploy/nginx/sillage.conf are skipped (apt-get install -y nginx, or set NGINX_PATH)',
  );
}

/** "1m", "64k", "1024" in nginx's size syntax, in bytes. */
function nginxBytes(size: string): number {
  const m = /^(\d+)([kKmMgG]?)$/.exec(size);
  if (!m) throw new Error(`not an nginx size: ${size}`);
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m[2] ?? '').toLowerCase()] ?? 1;
  return Number(m[1]) * unit;
}

/** "20s", "20", "1min 30s", "500ms" in systemd's time syntax, in seconds. */
function systemdSeconds(span: string): number {
  const units: Record<string, number> = { '': 1, ms: 0.001, s: 1, sec: 1, m: 60, min: 60, h: 3600 };
  let total = 0;
  for (const part of span.trim().split(/\s+/)) {
    const m = /^(\d+(?:\.\d+)?)([a-z]*)$/.exec(part);
    const unit = m ? units[m[2] ?? ''] : undefined;
    if (!m || unit === undefined) throw new Error(`not a systemd time span: ${span}`);
    total += Number(m[1]) * unit;
  }
  return total;
}

/** A number literal in a source file, found by the text before it: `keepAliveTimeout: 72_000`. */
function sourceNumber(path: string, before: RegExp): number {
  const m = new RegExp(`${before.source}\\s*([\\d_]+(?:\\s*\\*\\s*[\\d_]+)*)`).exec(read(path));
  if (!m?.[1]) throw new Error(`${path}: no number after ${before.source}`);
  return m[1].split('*').reduce((product, n) => product * Number(n.trim().replaceAll('_', '')), 1);
}

/** The nginx config's blocks: the text between `<head> {` and its closing brace. */
function nginxBlock(conf: string, head: RegExp): string {
  const m = head.exec(conf);
  if (!m) throw new Error(`no block ${head.source}`);
  let depth = 0;
  const start = conf.indexOf('{', m.index);
  for (let i = start; i < conf.length; i++) {
    if (conf[i] === '{') depth++;
    else if (conf[i] === '}' && --depth === 0) return conf.slice(start + 1, i);
  }
  throw new Error(`unclosed block ${head.source}`);
}

/** An nginx directive's argument in a block, top level of the block only. */
function directive(block: string, name: string): string | undefined {
  let depth = 0;
  for (const line of block.split('\n')) {
    const code = line.replace(/#.*/, '').trim();
    if (depth === 0) {
      const m = new RegExp(`^${name}\\s+([^;]+);`).exec(code);
      if (m) return m[1]?.trim();
    }
    depth += (code.match(/\{/g) ?? []).length - (code.match(/\}/g) ?? []).length;
  }
  return undefined;
}

/** systemd unit: section -> key -> values (a key may repeat). */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section?.[1]) {
      current = new Map();
      sections.set(section[1], current);
      continue;
    }
    const eq = line.indexOf('=');
    if (!current || eq < 0) throw new Error(`unit line outside a section or without "=": ${line}`);
    const key = line.slice(0, eq).trim();
    current.set(key, [...(current.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return sections;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: () => string;
  json: () => Record<string, unknown>;
}

/** One HTTP request on a fresh connection from a chosen loopback address (127.0.0.2 is "another client"). */
function send(
  port: number,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer; from?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = opts.body === undefined ? undefined : Buffer.from(opts.body);
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: opts.method ?? 'GET',
        localAddress: opts.from ?? '127.0.0.1',
        agent: false,
        headers: { ...(body ? { 'content-length': String(body.length) } : {}), ...opts.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const buf = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: buf,
            text: () => buf.toString('utf8'),
            json: () => JSON.parse(buf.toString('utf8')) as Record<string, unknown>,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const json = (value: unknown, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(value),
});

// --- the service, listening for real ------------------------------------------

let app: TestApp;
let appPort: number;
/** the path of every request that reached the service */
const seen: string[] = [];

beforeAll(async () => {
  app = await buildTestApp({ TRUST_PROXY: '127.0.0.1' }, (a) => {
    a.addHook('onRequest', async (req) => {
      seen.push(req.url);
    });
    // what the service concluded about the client, for this test only
    a.get('/deploy-test/client', { schema: { hide: true } }, async (req) => ({
      ip: req.ip,
      ips: req.ips ?? [],
      protocol: req.protocol,
    }));
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  appPort = (app.server.address() as { port: number }).port;
});
afterAll(() => closeTestApp(app));

// --- static checks: cheap, always run -----------------------------------------

describe('Dockerfile', () => {
  const text = read('Dockerfile');
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  const stages = lines.flatMap((l, i) => (/^FROM\s/i.test(l) ? [i] : []));
  const runtime = lines.slice(stages.at(-1) ?? 0).join('\n');

  it('is multi-stage: npm ci, then the widget build and production dependencies only, then a runtime stage', () => {
    expect(stages.length).toBeGreaterThanOrEqual(3);
    expect(text).toMatch(/^RUN npm ci\b/m);
    expect(text).toMatch(/npm run build/);
    expect(text).toMatch(/npm prune --omit=dev/);
    expect(runtime).toMatch(/^COPY --from=build /m);
    // the admin CLI runs its TypeScript through tsx: it must survive the prune; the compiler need not
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies)).toEqual(expect.arrayContaining(['tsx']));
    expect(Object.keys(pkg.dependencies)).not.toContain('typescript');
  });

  it('runs as a non-root user, listens on every interface, keeps its data in a volume, stops on SIGTERM', () => {
    const user = /^USER\s+(\S+)/m.exec(runtime)?.[1];
    expect(user).toBeDefined();
    expect(['root', '0', '0:0']).not.toContain(user);
    expect(runtime).toMatch(/^EXPOSE 3000$/m);
    expect(runtime).toMatch(/HOST=0\.0\.0\.0/);
    expect(runtime).toMatch(/PGLITE_DATA_DIR=\/app\/\.data\//);
    expect(runtime).toMatch(/^VOLUME \["\/app\/\.data"\]$/m);
    expect(runtime).toMatch(/^STOPSIGNAL SIGTERM$/m);
    // the compiled service, as plain node: no loader, no compiler
    expect(runtime).toMatch(/^CMD \["node", "--max-semi-space-size=4", "--liftoff-only", "build\/server\.js"\]$/m);
  });

  it('keeps node_modules, data and secrets out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', '.data', '.env', '.git', 'dist']));
  });

  it('has a HEALTHCHECK on /healthz that works without curl: exit 0 when up, 1 when down', async () => {
    const cmd = /^HEALTHCHECK .*?CMD (\[.*\])$/m.exec(runtime)?.[1];
    expect(cmd).toBeDefined();
    const argv = JSON.parse(cmd ?? '[]') as string[];
    expect(argv.slice(0, 2)).toEqual(['node', '-e']);
    expect(argv[2]).toContain('/healthz');
    const run = (port: number) =>
      new Promise<number>((resolve) => {
        execFile(process.execPath, ['-e', argv[2] ?? ''], { env: { ...process.env, PORT: String(port) } }, (err) =>
          resolve(err ? Number(err.code ?? 1) : 0),
        );
      });
    expect(await run(appPort)).toBe(0);
    expect(await run(await freePort())).toBe(1);
  });
});

describe('deploy/systemd/sillage@.service', () => {
  const path = join(ROOT, 'deploy/systemd/sillage@.service');
  const unit = parseUnit(readFileSync(path, 'utf8'));
  const service = unit.get('Service') ?? new Map<string, string[]>();
  const one = (key: string) => service.get(key)?.at(-1);

  it('runs the compiled service with plain node from /opt/sillage as a dedicated user, the port from the instance name', () => {
    expect(one('User')).toMatch(/^[a-z_][a-z0-9_-]*$/);
    expect(one('User')).not.toBe('root');
    expect(one('EnvironmentFile')).toBe('/etc/sillage/sillage.env');
    expect(one('WorkingDirectory')).toBe('/opt/sillage');
    expect(one('ExecStart')).toMatch(/PORT=%i node --max-semi-space-size=4 --liftoff-only build\/server\.js$/);
    expect(one('Restart')).toBe('on-failure');
    expect(unit.get('Install')?.get('WantedBy')).toEqual(['multi-user.target']);
  });

  it("stops with SIGTERM and waits longer than the service's graceful close", () => {
    const graceMs = sourceNumber('server.ts', /closeWithGrace\(\{ delay:/);
    expect(one('KillSignal')).toBe('SIGTERM');
    expect(systemdSeconds(one('TimeoutStopSec') ?? '0')).toBeGreaterThan(graceMs / 1000);
  });

  it('is hardened, writable only in the state directory that holds the embedded database', () => {
    for (const [key, value] of Object.entries({
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      PrivateDevices: 'yes',
    })) {
      expect(one(key), key).toBe(value);
    }
    const dataDir = (service.get('Environment') ?? []).map((e) => /^PGLITE_DATA_DIR=(.+)$/.exec(e)?.[1]).find(Boolean);
    expect(dataDir).toBeDefined();
    const writable = (one('ReadWritePaths') ?? '').split(/\s+/);
    expect(writable.some((w) => dataDir?.startsWith(`${w}/`))).toBe(true);
    expect(`/var/lib/${one('StateDirectory')}`).toBe(writable[0]);
  });

  it.skipIf(!which('systemd-analyze'))('passes systemd-analyze verify without a warning on its lines', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sillage-unit-'));
    try {
      writeFileSync(join(dir, 'sillage@.service'), readFileSync(path));
      const res = spawnSync('systemd-analyze', ['verify', '--man=no', 'sillage@3000.service'], {
        cwd: dir,
        encoding: 'utf8',
      });
      expect(`${res.stdout}${res.stderr}`).not.toMatch(/sillage@\.service:\d+:/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('deploy/nginx/sillage.conf agrees with the service', () => {
  const conf = read('deploy/nginx/sillage.conf');
  const https = nginxBlock(conf, /server\s*\{(?=[^}]*listen 443)/);

  it("body limits equal the service's: 1 MiB, each route fitted to its bodies, admin product sync 64 MB", () => {
    expect(nginxBytes(directive(https, 'client_max_body_size') ?? '')).toBe(DEFAULT_BODY_LIMIT);
    const limitAt = (location: RegExp) =>
      nginxBytes(directive(nginxBlock(https, location), 'client_max_body_size') ?? '');
    expect(limitAt(/location = \/api\/widget\/event\s*\{/)).toBe(MAX_REQUEST_BYTES);
    expect(limitAt(/location = \/api\/widget\/verify\s*\{/)).toBe(VERIFY_MAX_BYTES);
    expect(limitAt(/location = \/api\/widget\/lookup\s*\{/)).toBe(LOOKUP_MAX_BYTES);
    expect(SCORE_MAX_BYTES).toBe(DEFAULT_BODY_LIMIT);
    expect(limitAt(/location \/api\/platforms\/\s*\{/)).toBe(PLATFORM_WEBHOOK_MAX_BYTES);
    expect(limitAt(/location = \/api\/platforms\/shopify\/webhooks\s*\{/)).toBe(SHOPIFY_WEBHOOK_MAX_BYTES);
    expect(limitAt(/location \/api\/platforms\/zid\/webhooks\/\s*\{/)).toBe(ZID_WEBHOOK_MAX_BYTES);
    expect(limitAt(/location \/console\s*\{/)).toBe(CONSOLE_FORM_LIMIT);
    const admin = nginxBlock(https, /location \/api\/admin\/\s*\{/);
    expect(nginxBytes(directive(admin, 'client_max_body_size') ?? '')).toBe(
      sourceNumber('routes/admin/products.ts', /const FEED_BODY_LIMIT =/),
    );
  });

  it('serves the admin API only to loopback and private networks, and refuses the rest in the error shape', () => {
    const admin = nginxBlock(https, /location \/api\/admin\/\s*\{/);
    const rules = [...admin.matchAll(/^\s*(allow|deny)\s+([^;]+);/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(rules).toEqual([
      'allow 127.0.0.1',
      'allow ::1',
      'allow 10.0.0.0/8',
      'allow 172.16.0.0/12',
      'allow 192.168.0.0/16',
      'deny all',
    ]);
    expect(directive(https, 'error_page 403')).toBe('@sillage_forbidden');
    const forbidden = nginxBlock(conf, /location @sillage_forbidden\s*\{/);
    expect(forbidden).toMatch(/return 403 '\{"error":"[^"]+","code":"forbidden"\}/);
  });

  it("closes idle upstream connections before the service's keep-alive timeout does", () => {
    const upstream = nginxBlock(conf, /upstream sillage\s*\{/);
    const nginxIdle = Number.parseInt(directive(upstream, 'keepalive_timeout') ?? '', 10);
    expect(nginxIdle * 1000).toBeLessThan(sourceNumber('app.ts', /keepAliveTimeout:/));
    expect(directive(upstream, 'keepalive')).toBeDefined();
    expect(directive(https, 'proxy_http_version')).toBe('1.1');
    expect(directive(https, 'proxy_set_header Connection')).toBe('""');
  });

  it('cuts slow clients no later than the service would', () => {
    const seconds = (name: string) => Number.parseInt(directive(https, name) ?? '', 10);
    const service = loadConfig({}).requestTimeoutMs;
    expect(seconds('client_header_timeout') * 1000).toBeLessThanOrEqual(Math.min(10_000, service));
    expect(seconds('client_body_timeout') * 1000).toBeLessThanOrEqual(service);
    expect(seconds('send_timeout')).toBeGreaterThan(0);
    expect(seconds('proxy_read_timeout')).toBeGreaterThan(0);
  });

  it('forwards the client address, scheme and host; two instances on loopback', () => {
    expect(directive(https, 'proxy_set_header X-Forwarded-For')).toBe('$proxy_add_x_forwarded_for');
    expect(directive(https, 'proxy_set_header X-Forwarded-Proto')).toBe('$scheme');
    expect(directive(https, 'proxy_set_header Host')).toBe('$host');
    const servers = [...nginxBlock(conf, /upstream sillage\s*\{/).matchAll(/^\s*server (127\.0\.0\.1:\d+)/gm)];
    expect(servers.map((s) => s[1])).toEqual(['127.0.0.1:3000', '127.0.0.1:3001']);
    expect(conf).toMatch(/TRUST_PROXY=127\.0\.0\.1/);
  });
});

// --- nginx for real -------------------------------------------------------------

/** The shipped config on test ports and paths: no TLS, the upstream = the test app (and a dead instance). */
function adaptConfig(src: string, o: { dir: string; main: number; redirect: number; upstreams: number[] }) {
  let out = src;
  const swap = (re: RegExp, to: string, what: string, min = 1) => {
    const n = out.match(new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`))?.length ?? 0;
    if (n < min) throw new Error(`deploy/nginx/sillage.conf changed: ${what} not found; adapt this test`);
    out = out.replace(re, to);
  };
  const upstream = /^([ \t]*)server 127\.0\.0\.1:\d+([^;\n]*);\n/gm;
  const servers = [...out.matchAll(upstream)];
  if (servers.length < 2) throw new Error('deploy/nginx/sillage.conf changed: upstream servers not found');
  const [indent, params] = [servers[0]?.[1] ?? '', servers[0]?.[2] ?? ''];
  let first = true;
  out = out.replace(upstream, () => {
    if (!first) return '';
    first = false;
    return o.upstreams.map((p) => `${indent}server 127.0.0.1:${p}${params};\n`).join('');
  });
  swap(/^[ \t]*listen \[::\]:\d+[^;]*;\n/gm, '', 'the IPv6 listen lines', 2);
  swap(/^([ \t]*)listen 443 ssl[^;]*;/m, `$1listen 127.0.0.1:${o.main};`, 'listen 443 ssl');
  swap(/^([ \t]*)listen 80;/m, `$1listen 127.0.0.1:${o.redirect};`, 'listen 80');
  swap(/^[ \t]*ssl_\w+ [^;]*;\n/gm, '', 'the ssl_ lines', 2);
  swap(/\/var\/log\/nginx\//g, `${o.dir}/`, 'the log paths', 2);
  return out;
}

/** A complete nginx.conf around it, everything under dir. */
function mainConfig(dir: string, include: string) {
  return `worker_processes 1;
pid ${dir}/nginx.pid;
events { worker_connections 1024; }
http {
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  access_log off;
  include ${include};
}
`;
}

function nginxTest(dir: string, conf: string) {
  return spawnSync(NGINX ?? 'nginx', ['-t', '-p', dir, '-c', conf, '-e', join(dir, 'error.log')], {
    encoding: 'utf8',
  });
}

describe.skipIf(!NGINX)('through nginx (deploy/nginx/sillage.conf on loopback, no TLS)', () => {
  let dir: string;
  let main: number;
  let redirect: number;
  let nginx: ReturnType<typeof spawn> | undefined;
  let nginxOutput = '';
  let key: string;
  let merchantSlug: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sillage-nginx-'));
    chmodSync(dir, 0o755); // nginx's workers run as another user when started by root
    [main, redirect] = [await freePort(), await freePort()];
    // a second instance that is down: nginx must route around it (a rolling restart)
    const down = await freePort();
    writeFileSync(
      join(dir, 'sillage.conf'),
      adaptConfig(read('deploy/nginx/sillage.conf'), { dir, main, redirect, upstreams: [appPort, down] }),
    );
    writeFileSync(join(dir, 'nginx.conf'), mainConfig(dir, join(dir, 'sillage.conf')));
    const checked = nginxTest(dir, join(dir, 'nginx.conf'));
    if (checked.status !== 0) throw new Error(`nginx -t refused the adapted config:\n${checked.stderr}`);

    nginx = spawn(
      NGINX ?? 'nginx',
      ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log'), '-g', 'daemon off;'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    nginx.stdout?.on('data', (d) => {
      nginxOutput += d;
    });
    nginx.stderr?.on('data', (d) => {
      nginxOutput += d;
    });
    const until = Date.now() + 10_000;
    for (;;) {
      const up = await new Promise<boolean>((resolve) => {
        const s = connect(main, '127.0.0.1', () => {
          s.end();
          resolve(true);
        }).on('error', () => resolve(false));
      });
      if (up) break;
      if (nginx.exitCode !== null || Date.now() > until) {
        const log = existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '';
        throw new Error(`nginx did not start:\n${nginxOutput}\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }

    const m = await createMerchantWithKey(app, { origins: ['https://shop.example'] });
    key = m.key;
    merchantSlug = m.merchant.slug;
  });

  afterAll(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((r) => nginx?.once('exit', r));
      nginx.kill('SIGTERM');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('nginx -t accepts the adapted config, and the shipped file as it is once a certificate exists', () => {
    expect(nginxTest(dir, join(dir, 'nginx.conf')).stderr).toContain('test is successful');
    // the file as shipped (TLS, ports 80 and 443: -t binds nothing), only the certificate and log paths swapped
    const openssl = which('openssl');
    if (!openssl) {
      console.log('openssl is not installed: nginx -t of the TLS server as shipped is skipped');
      return;
    }
    const made = spawnSync(
      openssl,
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=widget.example.com'].concat([
        '-keyout',
        join(dir, 'tls.key'),
        '-out',
        join(dir, 'tls.crt'),
      ]),
      { encoding: 'utf8' },
    );
    expect(made.status, made.stderr).toBe(0);
    const shipped = read('deploy/nginx/sillage.conf')
      .replace(/\/etc\/letsencrypt\/live\/[^/]+\/fullchain\.pem/, join(dir, 'tls.crt'))
      .replace(/\/etc\/letsencrypt\/live\/[^/]+\/privkey\.pem/, join(dir, 'tls.key'))
      .replaceAll('/var/log/nginx/', `${dir}/`);
    writeFileSync(join(dir, 'shipped.conf'), shipped);
    writeFileSync(join(dir, 'shipped-nginx.conf'), mainConfig(dir, join(dir, 'shipped.conf')));
    const res = nginxTest(dir, join(dir, 'shipped-nginx.conf'));
    expect(res.stderr).toContain('test is successful');
  });

  it('verify, a product sync on the admin API and score work through it, with the request id carried both ways', async () => {
    const verified = await send(main, '/api/widget/verify', json({ api_key: key }, { origin: 'https://shop.example' }));
    expect(verified.status).toBe(200);
    expect(verified.json().valid).toBe(true);
    // no id sent: nginx's own ($request_id), which the service keeps, so both logs share it
    expect(verified.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
    expect(verified.headers['cache-control']).toBe('no-store');
    const traced = await send(main, '/api/widget/verify', json({ api_key: key }, { 'x-request-id': 'trace-deploy-1' }));
    expect(traced.headers['x-request-id']).toBe('trace-deploy-1');

    const synced = await send(main, `/api/admin/merchants/${merchantSlug}/products`, {
      ...json({
        products: [
          { merchant_product_id: 'oud-1', name: 'Oud Wood 100ml', house: 'Tom Ford', price: 1290 },
          { merchant_product_id: 'sw-1', name: 'Khamrah', house: 'Lattafa', price: 145 },
        ],
      }),
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(synced.status, synced.text()).toBe(200);
    expect(synced.json().matched).toBe(2);

    const quiz = { families: ['oud', 'amber'], accord_ratings: { oud: 'love' }, season: 'winter' };
    const scored = await send(
      main,
      '/api/widget/score',
      json({ api_key: key, locale: 'en', quiz }, { origin: 'https://shop.example', 'accept-encoding': 'gzip' }),
    );
    expect(scored.status).toBe(200);
    // nginx marks an /api/ answer no-store when the service says nothing; verify says it itself, once
    expect(scored.headers['cache-control']).toBe('no-store');
    // nginx compresses the JSON answer (the service leaves that to the proxy)
    expect(scored.headers['content-encoding']).toBe('gzip');
    const body = JSON.parse(gunzipSync(scored.body).toString('utf8')) as { recommendations: unknown[] };
    expect(body.recommendations.length).toBeGreaterThan(0);
  });

  it('half the upstream is down: every request still answered by the live instance (a rolling restart)', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        send(main, '/api/widget/verify', { ...json({ api_key: key }), from: '127.0.0.5' }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
  });

  it('the service takes the address nginx saw, never one the client wrote', async () => {
    const before = seen.length;
    const proxied = await send(main, '/deploy-test/client', {
      from: '127.0.0.2',
      headers: { 'x-forwarded-for': '203.0.113.7' },
    });
    // nginx sent "203.0.113.7, 127.0.0.2"; the service walks it from the right and stops at the first
    // address not in TRUST_PROXY (127.0.0.1): the forged entry on the left is never reached
    expect(proxied.json()).toEqual({ ip: '127.0.0.2', ips: ['127.0.0.1', '127.0.0.2'], protocol: 'http' });
    expect(seen.length).toBe(before + 1);

    // straight to the service from an untrusted address: the header is ignored altogether
    const direct = await send(appPort, '/deploy-test/client', {
      from: '127.0.0.2',
      headers: { 'x-forwarded-for': '203.0.113.7' },
    });
    expect(direct.json().ip).toBe('127.0.0.2');
    // …but anything connecting from a trusted address is believed: why the service listens on loopback only
    const trusted = await send(appPort, '/deploy-test/client', { headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(trusted.json().ip).toBe('203.0.113.7');
  });

  it('per-address rate limits count the real client through the proxy: forging X-Forwarded-For gains nothing', async () => {
    const limit = WIDGET_RATE_LIMITS.verify;
    const statuses: number[] = [];
    for (let i = 0; i < limit; i++) {
      const res = await send(main, '/api/widget/verify', {
        ...json({ api_key: key }),
        from: '127.0.0.3',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${i}` },
      });
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const over = await send(main, '/api/widget/verify', {
      ...json({ api_key: key }),
      from: '127.0.0.3',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.250' },
    });
    expect(over.status).toBe(429);
    expect(over.json().code).toBe('rate_limited');
    expect(over.headers['x-request-id']).toBeDefined(); // the service's own 429, with Retry-After
    expect(over.headers['retry-after']).toMatch(/^\d+$/);

    // another shopper of the same shop, another address: its own allowance
    const other = await send(main, '/api/widget/verify', { ...json({ api_key: key }), from: '127.0.0.4' });
    expect(other.status).toBe(200);
  });

  it('/widget/v1/ files keep their Content-Encoding, ETag and Cache-Control; nginx does not compress them again', async () => {
    const original = readFileSync(join(WIDGET_DIST, 'sillage.js'));
    const br = await send(main, '/widget/v1/sillage.js', { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['cache-control']).toBe(STABLE_CACHE);
    expect(br.headers.vary).toMatch(/Accept-Encoding/i);
    expect(br.headers['cache-control']).not.toContain('no-store');
    expect(brotliDecompressSync(br.body).equals(original)).toBe(true);

    const gz = await send(main, '/widget/v1/sillage.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(original)).toBe(true);

    const plain = await send(main, '/widget/v1/sillage.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(original)).toBe(true);

    const etag = String(br.headers.etag);
    const again = await send(main, '/widget/v1/sillage.js', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);

    const manifest = (await send(main, '/widget/v1/manifest.json')).json() as {
      files: Record<string, { hashed: string }>;
    };
    const pinned = await send(main, `/widget/v1/${manifest.files['sillage.js']?.hashed}`);
    expect(pinned.headers['cache-control']).toBe(IMMUTABLE_CACHE);
  });

  it('refuses an oversized body itself, with 413 in the service error shape, before the service sees it', async () => {
    const before = seen.length;
    const pad = (bytes: number, extra: object = {}) => {
      const shell = JSON.stringify({ api_key: key, ...extra, pad: '' });
      return shell.replace('"pad":""', `"pad":"${'x'.repeat(bytes - shell.length)}"`);
    };
    const big = await send(main, '/api/widget/score', {
      ...json({}),
      body: pad(DEFAULT_BODY_LIMIT + 1),
      from: '127.0.0.6',
    });
    expect(big.status).toBe(413);
    expect(big.json()).toEqual({ error: 'The request body is too large', code: 'payload_too_large' });
    expect(big.headers['access-control-allow-origin']).toBe('*');
    expect(big.headers['x-request-id']).toBeUndefined();

    const bigEvent = await send(main, '/api/widget/event', {
      ...json({}),
      body: pad(MAX_REQUEST_BYTES + 1),
      from: '127.0.0.6',
    });
    expect(bigEvent.status).toBe(413);
    expect(seen.length).toBe(before);

    // exactly at the limit it passes nginx: the service answers (here 400: `pad` is no field of score)
    const atLimit = await send(main, '/api/widget/score', {
      ...json({}),
      body: pad(DEFAULT_BODY_LIMIT),
      from: '127.0.0.6',
    });
    expect(atLimit.status).not.toBe(413);
    expect(atLimit.headers['x-request-id']).toBeDefined();

    // the admin API takes product feeds up to 64 MB
    const feedBody = JSON.stringify({
      products: Array.from({ length: 8000 }, (_, i) => ({
        merchant_product_id: `bulk-${i}`,
        name: `Bulk Product Number ${i} Eau de Parfum 100ml`,
        house: 'Local Atelier',
        price: 100 + (i % 50),
        product_url: `https://shop.example/products/bulk-${i}-${'p'.repeat(120)}`,
      })),
    });
    expect(feedBody.length).toBeGreaterThan(2 * DEFAULT_BODY_LIMIT);
    const feed = await send(main, `/api/admin/merchants/${merchantSlug}/products`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: feedBody,
    });
    expect(feed.status, feed.text()).toBe(200);
    expect(feed.json().upserted).toBe(8000);
    expect(seen.filter((u) => u.endsWith('/products')).length).toBeGreaterThan(0);
  }, 120_000); // 8,000 products synced through nginx: seconds alone, far more on a loaded 2-core machine

  it('redirects plain HTTP to HTTPS, keeping the path and query', async () => {
    const res = await send(redirect, '/demo?lang=en', { headers: { host: 'widget.example.com' } });
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('https://widget.example.com/demo?lang=en');
  });

  it('does not serve /metrics to the public (Prometheus scrapes each instance directly)', async () => {
    const before = seen.length;
    expect((await send(main, '/metrics')).status).toBe(404);
    expect(seen.length).toBe(before);
  });

  it("the flood guard answers one address's flood with JSON 429 itself, well above the service's limits", async () => {
    const before = seen.length;
    const answers: Answer[] = [];
    // 400 requests in 4 waves of 100 at once: even if they took 4 s, at most 100 + 4 × 50 could pass
    for (let wave = 0; wave < 4; wave++) {
      answers.push(
        ...(await Promise.all(Array.from({ length: 100 }, () => send(main, '/healthz', { from: '127.0.0.7' })))),
      );
    }
    const refused = answers.filter((a) => a.status === 429);
    const passed = answers.filter((a) => a.status === 200);
    // burst 100 at once, then 50 a second
    expect(passed.length).toBeGreaterThanOrEqual(100);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]?.json()).toEqual({ error: 'Too many requests from this address', code: 'rate_limited' });
    expect(refused[0]?.headers['retry-after']).toBe('1');
    expect(refused[0]?.headers['x-request-id']).toBeUndefined();
    expect(seen.length - before).toBe(passed.length);
  });
});
