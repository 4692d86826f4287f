import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { ADMIN_TOKEN, LEAD_KEY } from './helper.ts';

/**
 * A harness for tests that need real service processes: several instances on
 * one PostgreSQL and one Redis, instances killed or stopped, and a TCP proxy
 * that can cut an instance off from its database or Redis without touching
 * the real servers (other test files use them in parallel).
 *
 * A helper module, not a test file: tests/cluster.test.ts and
 * tests/faults.test.ts use it.
 */

const ROOT = join(import.meta.dirname, '..');

/** A port the OS says is free now, for an instance to listen on. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Calls `check` until it returns something other than undefined/false, or
 * throws naming `what` once `timeoutMs` has passed. Every wait in these tests
 * goes through here: a deadline, never a bare sleep taken as an assertion.
 */
export async function poll<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 10_000, intervalMs = 50 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${(lastError as Error).message})` : ''}`,
      );
    }
    await sleep(intervalMs);
  }
}

// ---------------------------------------------------------------------------
// HTTP client

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** when the answer was complete (performance.now()) */
  at: number;
  /** how long it took, ms */
  ms: number;
  json<T = Record<string, unknown>>(): T;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** the client gives up after this long: a hang is an error, not a slow test */
  timeoutMs?: number;
  /** connect from this loopback address (another "shopper" for the rate limits) */
  localAddress?: string;
  agent?: http.Agent;
}

/** Thrown when an answer did not come within the client's timeout. */
export class ClientTimeout extends Error {
  override name = 'ClientTimeout';
}

/** A whole response as an Answer, timed from `started` (performance.now()). */
function readAnswer(res: http.IncomingMessage, started: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('error', reject);
    res.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const at = performance.now();
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        body,
        at,
        ms: at - started,
        json: <T>() => JSON.parse(body) as T,
      });
    });
  });
}

/**
 * One HTTP request with a hard client timeout. node:http rather than fetch so a
 * request can come from a chosen loopback address and use a keep-alive agent
 * the test controls.
 */
export function request(url: string, opts: RequestOptions = {}): Promise<Answer> {
  const started = performance.now();
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: opts.method ?? (payload === undefined ? 'GET' : 'POST'),
        headers: {
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }),
          ...opts.headers,
        },
        localAddress: opts.localAddress,
        // a fresh connection per request unless the test passes its own agent
        agent: opts.agent ?? false,
      },
      (res) =>
        readAnswer(res, started)
          .then(resolve, reject)
          .finally(() => clearTimeout(timer)),
    );
    const timer = setTimeout(() => {
      req.destroy(new ClientTimeout(`no answer from ${url} within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(payload);
  });
}

/**
 * A POST whose headers and first half of the body are sent now and the rest on
 * finish(): the server has begun the request (it logs "incoming request") but
 * cannot answer it yet. How a test holds a request in flight across a signal.
 */
export function startRequest(
  url: string,
  body: unknown,
  opts: { headers?: Record<string, string>; agent?: http.Agent; timeoutMs?: number } = {},
): { finish(): Promise<Answer> } {
  const payload = Buffer.from(JSON.stringify(body));
  const half = Math.floor(payload.length / 2);
  const timeoutMs = opts.timeoutMs ?? 20_000;
  let started = performance.now();
  const req = http.request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(payload.length), ...opts.headers },
    agent: opts.agent ?? false,
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    const timer = setTimeout(
      () => req.destroy(new ClientTimeout(`no answer from ${url} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.on('response', (res) =>
      readAnswer(res, started)
        .then(resolve, reject)
        .finally(() => clearTimeout(timer)),
    );
  });
  // surfaced by finish(); never an unhandled rejection in between
  answer.catch(() => {});
  req.flushHeaders();
  req.write(payload.subarray(0, half));
  return {
    finish() {
      started = performance.now();
      req.end(payload.subarray(half));
      return answer;
    },
  };
}

export const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };

// ---------------------------------------------------------------------------
// Service instances

export interface Instance {
  name: string;
  port: number;
  /** http://127.0.0.1:port */
  url: string;
  child: ChildProcess;
  /** everything the process wrote on stdout and stderr so far */
  output(): string;
  /** resolves when the process has exited */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** resolves once /readyz answers 200; rejects (with the output) if the process exits or time runs out */
  ready(timeoutMs?: number): Promise<void>;
  /** SIGTERM, then SIGKILL if it has not exited within graceMs; resolves once exited */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface InstanceOptions {
  name: string;
  databaseUrl: string;
  redisUrl?: string;
  /** default warn: the lines a test looks for (Redis fallback) are warnings */
  logLevel?: string;
  env?: Record<string, string>;
}

const running = new Set<Instance>();

/**
 * Starts `node --import tsx server.ts` (what `npm start` runs, without npm's
 * own start-up cost) with a clean environment naming everything it needs.
 * Returns at once; call ready() to wait for it.
 */
export async function startInstance(opts: InstanceOptions): Promise<Instance> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: opts.databaseUrl,
      ...(opts.redisUrl ? { REDIS_URL: opts.redisUrl } : {}),
      ADMIN_TOKEN,
      LEAD_ENCRYPTION_KEY: LEAD_KEY,
      SEED_DEMO: 'false',
      LOG_LEVEL: opts.logLevel ?? 'warn',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
    running.delete(instance);
  });
  const url = `http://127.0.0.1:${port}`;
  const instance: Instance = {
    name: opts.name,
    port,
    url,
    child,
    output: () => out,
    exited,
    async ready(timeoutMs = 60_000) {
      await poll(
        `${opts.name} to answer /readyz`,
        async () => {
          if (hasExited) throw new Error(`${opts.name} exited before it was ready:\n${out}`);
          const res = await request(`${url}/readyz`, { timeoutMs: 3000 }).catch(() => null);
          return res?.status === 200;
        },
        { timeoutMs, intervalMs: 100 },
      ).catch((err) => {
        throw new Error(`${(err as Error).message}\n--- ${opts.name} output ---\n${out}`);
      });
    },
    async stop(graceMs = 15_000) {
      if (hasExited) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
  running.add(instance);
  return instance;
}

/** Every instance still running: stopped after each test file, killed if it will not stop. */
export async function stopAllInstances(): Promise<void> {
  await Promise.all([...running].map((i) => i.stop(5000)));
}

/** The outputs of the given instances, for a failed test's report. */
export function outputsOf(instances: Iterable<Instance>): string {
  return [...instances].map((i) => `\n--- ${i.name} (${i.url}) output ---\n${i.output()}`).join('\n');
}

// ---------------------------------------------------------------------------
// Fault proxy

/**
 * What a cut does:
 * - `refuse`: live connections are closed and the listening port too, so new
 *   ones get ECONNREFUSED exactly as from a stopped server (PostgreSQL
 *   restarting, the Redis process gone);
 * - `blackhole`: live connections are closed; new ones are accepted and never
 *   answered, like a server that hangs after the handshake;
 * - `freeze`: nothing is closed, nothing passes any more, on live connections
 *   as on new ones: a network partition, or a server paused mid-stream. The
 *   client learns of it only through its own timeouts.
 */
export type CutMode = 'refuse' | 'blackhole' | 'freeze';

interface Pair {
  client: Socket;
  upstream: Socket;
}

/**
 * A TCP proxy between an instance and PostgreSQL or Redis. `cut()` takes the
 * server away (see CutMode) until `restore()`.
 */
export class FaultProxy {
  private server: Server | null = null;
  private readonly pairs = new Set<Pair>();
  private readonly held = new Set<Socket>();
  private mode: 'open' | CutMode = 'open';

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
    readonly port: number,
  ) {}

  /** A proxy to the server `targetUrl` names (postgres://… or redis://…). */
  static async start(targetUrl: string): Promise<FaultProxy> {
    const target = new URL(targetUrl);
    const defaultPort = target.protocol.startsWith('redis') ? 6379 : 5432;
    // The proxy's port must be free again when a refuse-cut ends and the port is
    // listened on anew: a port below the OS's ephemeral range is never handed
    // out to an outgoing connection in between.
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = 20_000 + Math.floor(Math.random() * 12_000);
      const proxy = new FaultProxy(target.hostname, Number(target.port || defaultPort), port);
      try {
        await proxy.listen();
        return proxy;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      }
    }
    throw new Error('no free port for the fault proxy');
  }

  /** `targetUrl` with its host and port replaced by the proxy's. */
  urlFor(targetUrl: string): string {
    const u = new URL(targetUrl);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  private listen(): Promise<void> {
    const server = createServer((client) => this.onConnection(client));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        this.server = server;
        resolve();
      });
    });
  }

  private onConnection(client: Socket) {
    client.on('error', () => {});
    if (this.mode !== 'open') {
      // blackhole or freeze: accepted, never answered
      this.held.add(client);
      client.once('close', () => this.held.delete(client));
      return;
    }
    const upstream = netConnect(this.targetPort, this.targetHost);
    const pair = { client, upstream };
    this.pairs.add(pair);
    upstream.on('error', () => client.destroy());
    const end = () => {
      client.destroy();
      upstream.destroy();
      this.pairs.delete(pair);
    };
    client.once('close', end);
    upstream.once('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** The local ports of the proxy's connections to the server: how the server sees this proxy's clients. */
  upstreamPorts(): Set<number> {
    return new Set([...this.pairs].map((p) => p.upstream.localPort).filter((p): p is number => p !== undefined));
  }

  private dropLive() {
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
  }

  /** Takes the server away until restore(). */
  async cut(mode: CutMode = 'refuse'): Promise<void> {
    this.mode = mode;
    if (mode === 'freeze') {
      // bytes already read are dropped, nothing more is read: both sides wait forever
      for (const { client, upstream } of this.pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
      return;
    }
    this.dropLive();
    if (mode === 'refuse' && this.server) {
      const server = this.server;
      this.server = null;
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  /**
   * The server is reachable again. Connections a blackhole or freeze held are
   * closed: they were broken, and a client that still waits on one learns it
   * now, as it would from a TCP timeout.
   */
  async restore(): Promise<void> {
    if (this.mode === 'freeze') this.dropLive();
    this.mode = 'open';
    for (const s of this.held) s.destroy();
    this.held.clear();
    if (this.server) return;
    // the port was ours a moment ago; a listener is allowed on it at once (SO_REUSEADDR), but retry briefly anyway
    await poll(
      `the fault proxy to listen on ${this.port} again`,
      () =>
        this.listen().then(
          () => true,
          () => false,
        ),
      { timeoutMs: 5000, intervalMs: 50 },
    );
  }

  async close(): Promise<void> {
    this.mode = 'refuse';
    this.dropLive();
    for (const s of this.held) s.destroy();
    this.held.clear();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

// ---------------------------------------------------------------------------
// Fixtures through the admin API, as an operator would make them

/** A merchant and one live key (no browser origin needed: the tests call as a server would). */
export async function createMerchantAndKey(
  instance: Instance,
  label: string,
): Promise<{ merchantId: string; slug: string; key: string; keyId: string }> {
  const slug = `${label}-${randomBytes(4).toString('hex')}`;
  const merchant = await request(`${instance.url}/api/admin/merchants`, {
    headers: adminHeaders,
    body: { name: `Shop ${slug}`, slug },
  });
  if (merchant.status !== 201 && merchant.status !== 200) {
    throw new Error(`creating merchant: ${merchant.status} ${merchant.body}`);
  }
  const merchantId = merchant.json<{ id: string }>().id;
  const key = await request(`${instance.url}/api/admin/merchants/${merchantId}/keys`, {
    headers: adminHeaders,
    body: { mode: 'live', allowed_origins: ['https://shop.example'] },
  });
  if (key.status !== 201) throw new Error(`creating key: ${key.status} ${key.body}`);
  const created = key.json<{ id: string; key: string }>();
  return { merchantId, slug, key: created.key, keyId: created.id };
}

/** Products every test can score: two perfumes of the shipped catalog, matched on sync. */
export const BASE_FEED = [
  { merchant_product_id: 'sauvage', name: 'Dior Sauvage EDP 100ml', house: 'Dior', price: 595 },
  { merchant_product_id: 'khamrah', name: 'Lattafa Khamrah EDP', house: 'Lattafa', price: 155 },
];

export async function syncProducts(instance: Instance, merchantId: string, products: object[]): Promise<Answer> {
  const res = await request(`${instance.url}/api/admin/merchants/${merchantId}/products`, {
    method: 'PUT',
    headers: adminHeaders,
    body: { products },
  });
  if (res.status !== 200) throw new Error(`product sync: ${res.status} ${res.body}`);
  return res;
}

export const QUIZ = {
  families: ['oud', 'amber'],
  accord_ratings: { oud: 'love', citrus: 'avoid' },
  season: 'winter',
  occasion: 'evening',
};

/** The ids of every product a score answer shows (recommendations and also-explore). */
export function shownProducts(answer: Answer): string[] {
  const body = answer.json<{
    recommendations: { merchant_product_id: string }[];
    also_explore: { merchant_product_id: string }[];
  }>();
  return [...body.recommendations, ...body.also_explore].map((r) => r.merchant_product_id);
}
