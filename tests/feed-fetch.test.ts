import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { FEED_USER_AGENT, type FeedFetchOptions, fetchFeedPage } from '../services/feed-fetch.ts';

/**
 * The feed fetcher against real HTTP servers on this machine: 127.0.0.1 is
 * the operator's allowed private host (FEED_ALLOW_PRIVATE_HOSTS) in every
 * test, so the guard's refusals below are of other addresses and names.
 * Limits are asserted on the bytes read and the requests made, not on time.
 */

interface Server {
  url: string;
  port: number;
  /** requests received: method, path and headers */
  requests: http.IncomingMessage[];
  connections: number;
  close(): Promise<void>;
}

const servers: Server[] = [];

async function serve(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  host = '127.0.0.1',
): Promise<Server> {
  const requests: http.IncomingMessage[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req);
    handler(req, res);
  });
  const s: Server = {
    url: '',
    port: 0,
    requests,
    connections: 0,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
  server.on('connection', () => {
    s.connections++;
  });
  await new Promise<void>((done) => server.listen(0, host, done));
  s.port = (server.address() as AddressInfo).port;
  s.url = `http://${host}:${s.port}`;
  servers.push(s);
  return s;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const allow: FeedFetchOptions = { allowPrivateHosts: ['127.0.0.1'] };

describe('fetchFeedPage', () => {
  it('pulls a page: its text, validators and type, with the fetcher’s User-Agent and the access header', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        etag: '"v1"',
        'last-modified': 'Tue, 01 Dec 2026 10:00:00 GMT',
      });
      res.end('{"products":[{"title":"عود"}]}');
    });
    const page = await fetchFeedPage(`${s.url}/products.json?page=1`, {
      ...allow,
      headers: { 'X-Shopify-Access-Token': 'shpat_secret', 'User-Agent': 'spoofed' },
    });
    expect(page).toEqual({
      status: 200,
      body: '{"products":[{"title":"عود"}]}',
      etag: '"v1"',
      lastModified: 'Tue, 01 Dec 2026 10:00:00 GMT',
      contentType: 'application/json; charset=utf-8',
      link: null,
      totalPages: null,
      finalUrl: `${s.url}/products.json?page=1`,
      bytes: Buffer.byteLength('{"products":[{"title":"عود"}]}'),
    });
    expect(s.requests[0]?.headers['user-agent']).toBe(FEED_USER_AGENT);
    expect(s.requests[0]?.headers['x-shopify-access-token']).toBe('shpat_secret');
    expect(s.requests[0]?.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('asks again with the ETag and Last-Modified it got, and a 304 is said as such', async () => {
    const s = await serve((req, res) => {
      if (req.headers['if-none-match'] === '"v1"') {
        res.writeHead(304, { etag: '"v1"' });
        return res.end();
      }
      res.writeHead(200, { etag: '"v1"', 'last-modified': 'Tue, 01 Dec 2026 10:00:00 GMT' });
      res.end('id,title\n1,Oud\n');
    });
    const first = await fetchFeedPage(`${s.url}/feed.csv`, allow);
    if (first.status !== 200) throw new Error(`expected a page, got ${JSON.stringify(first)}`);
    const second = await fetchFeedPage(`${s.url}/feed.csv`, {
      ...allow,
      etag: first.etag,
      lastModified: first.lastModified,
    });
    expect(second).toEqual({ status: 304, finalUrl: `${s.url}/feed.csv` });
    expect(s.requests[1]?.headers['if-modified-since']).toBe('Tue, 01 Dec 2026 10:00:00 GMT');
    expect(s.requests[0]?.headers['if-none-match']).toBeUndefined();
  });

  it('follows a chain of 2 redirects, and refuses the 4th of a longer one without asking for it', async () => {
    const s = await serve((req, res) => {
      const n = Number(/^\/r\/(\d+)/.exec(req.url ?? '')?.[1]);
      if (n > 0) {
        res.writeHead(n % 2 ? 301 : 307, { location: `/r/${n - 1}?k=1` });
        return res.end();
      }
      res.end('end of the chain');
    });
    const two = await fetchFeedPage(`${s.url}/r/2`, allow);
    expect(two).toMatchObject({ status: 200, body: 'end of the chain', finalUrl: `${s.url}/r/0?k=1` });
    expect(s.requests).toHaveLength(3);

    const three = await fetchFeedPage(`${s.url}/r/3`, allow);
    expect(three).toMatchObject({ status: 200, finalUrl: `${s.url}/r/0?k=1` });

    s.requests.length = 0;
    const four = await fetchFeedPage(`${s.url}/r/4`, allow);
    expect(four).toMatchObject({ status: 'error', code: 'feed_too_many_redirects', url: `${s.url}/r/1` });
    // /r/4, /r/3, /r/2, /r/1 asked; /r/0 never
    expect(s.requests.map((r) => r.url)).toEqual(['/r/4', '/r/3?k=1', '/r/2?k=1', '/r/1?k=1']);
  });

  it('refuses a redirect to a private address before connecting to it', async () => {
    const inside = await serve((_req, res) => res.end('internal'), '127.0.0.2');
    const s = await serve((req, res) => {
      res.writeHead(302, {
        location: req.url === '/ten' ? 'http://10.0.0.1/latest' : `http://127.0.0.2:${inside.port}/admin`,
      });
      res.end();
    });
    const loop = await fetchFeedPage(`${s.url}/feed`, allow);
    expect(loop).toMatchObject({ status: 'error', code: 'feed_private_address', url: `${inside.url}/admin` });
    expect((loop as { message: string }).message).toMatch(/redirects to .*127\.0\.0\.2.*addresses on the internet/);
    expect(inside.connections).toBe(0);
    // no connection is tried: 10.0.0.1 would not answer within the test's time
    expect(await fetchFeedPage(`${s.url}/ten`, allow)).toMatchObject({ code: 'feed_private_address' });
  });

  it('refuses a host name that resolves to a private address unless the operator lists it', async () => {
    const s = await serve((_req, res) => res.end('ok'));
    // https: the scheme is right, so the refusal is the DNS answer's, before any connection
    const refused = await fetchFeedPage(`https://localhost:${s.port}/feed`, allow);
    expect(refused).toMatchObject({ status: 'error', code: 'feed_private_address' });
    expect((refused as { message: string }).message).toMatch(/localhost resolves to a loopback, private/);
    expect(s.connections).toBe(0);
    const listed = await fetchFeedPage(`http://localhost:${s.port}/feed`, { allowPrivateHosts: ['localhost'] });
    expect(listed).toMatchObject({ status: 200, body: 'ok' });
  });

  it('takes https only, plain http for a listed host alone, and no credentials in the URL', async () => {
    const s = await serve((_req, res) => res.end('ok'));
    expect(await fetchFeedPage(`${s.url}/feed`, allow)).toMatchObject({ status: 200, body: 'ok' });
    // a host on the internet (no request is made: the scheme is refused first)
    const plain = await fetchFeedPage('http://shop.example.com/feed.xml', allow);
    expect(plain).toMatchObject({ status: 'error', code: 'feed_bad_url', url: 'http://shop.example.com/feed.xml' });
    expect((plain as { message: string }).message).toMatch(/must start with https:\/\/ \(plain http/);
    // the private address is the first reason an unlisted one is refused
    expect(await fetchFeedPage(`${s.url}/feed`, {})).toMatchObject({ code: 'feed_private_address' });
    expect(await fetchFeedPage('ftp://shop.example.com/feed.xml', allow)).toMatchObject({ code: 'feed_bad_url' });
    expect(await fetchFeedPage('not a url', allow)).toMatchObject({ code: 'feed_bad_url', url: null });
    const creds = await fetchFeedPage(`http://user:pw@127.0.0.1:${s.port}/feed`, allow);
    expect(creds).toMatchObject({ code: 'feed_bad_url' });
    expect((creds as { message: string }).message).toMatch(/no user name or password/);
    expect(await fetchFeedPage('https://127.0.0.1/feed', {})).toMatchObject({ code: 'feed_private_address' });
    expect(await fetchFeedPage('https://[::ffff:169.254.169.254]/', {})).toMatchObject({
      code: 'feed_private_address',
    });
    expect(s.connections).toBe(1);
  });

  it('drops the access header when a redirect leaves the first address’s origin', async () => {
    const other = await serve((_req, res) => res.end('elsewhere'));
    const s = await serve((req, res) => {
      if (req.url === '/same') {
        res.writeHead(302, { location: '/there' });
        return res.end();
      }
      if (req.url === '/there') return res.end('here');
      res.writeHead(302, { location: `${other.url}/x` });
      res.end();
    });
    const token = { Authorization: 'Bearer secret' };
    expect(await fetchFeedPage(`${s.url}/away`, { ...allow, headers: token })).toMatchObject({ body: 'elsewhere' });
    expect(other.requests[0]?.headers.authorization).toBeUndefined();
    expect(await fetchFeedPage(`${s.url}/same`, { ...allow, headers: token })).toMatchObject({ body: 'here' });
    expect(s.requests.at(-1)?.headers.authorization).toBe('Bearer secret');
  });

  it('stops a body that never ends at the size cap, and the server sees the connection closed', async () => {
    let written = 0;
    let closed: () => void = () => {};
    const gone = new Promise<void>((done) => {
      closed = done;
    });
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/csv' });
      const chunk = Buffer.alloc(16 * 1024, 'a');
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
      };
      res.on('drain', pump);
      res.on('close', closed);
      pump();
    });
    const cap = 256 * 1024;
    const page = await fetchFeedPage(`${s.url}/forever.csv`, { ...allow, maxBytes: cap });
    expect(page).toMatchObject({ status: 'error', code: 'feed_too_large' });
    const bytes = (page as { bytes: number }).bytes;
    expect(bytes).toBeGreaterThan(cap);
    expect(bytes).toBeLessThanOrEqual(cap + 64 * 1024);
    expect((page as { message: string }).message).toMatch(/larger than 0\.3 MB, the limit for one page/);
    await gone;
    const atClose = written;
    await new Promise((r) => setTimeout(r, 50));
    expect(written).toBe(atClose);
  });

  it('cuts a page at what is left of the feed’s budget, and says so', async () => {
    const s = await serve((_req, res) => res.end(Buffer.alloc(10_000, 'x')));
    const page = await fetchFeedPage(`${s.url}/p2`, { ...allow, budgetBytes: 4000 });
    expect(page).toMatchObject({ code: 'feed_too_large', bytes: 0 }); // Content-Length says it: nothing read
    expect((page as { message: string }).message).toMatch(/larger than one feed may be/);
    expect(await fetchFeedPage(`${s.url}/p2`, { ...allow, budgetBytes: 10_000 })).toMatchObject({
      status: 200,
      bytes: 10_000,
    });
  });

  it('gives up on a server that never answers, or sends a byte now and then, at the time limit', async () => {
    const silent = await serve(() => {});
    const none = await fetchFeedPage(`${silent.url}/feed`, { ...allow, timeoutMs: 200 });
    expect(none).toMatchObject({ status: 'error', code: 'feed_timeout', bytes: 0 });
    expect((none as { message: string }).message).toMatch(/within 0\.2 s/);

    let sent = 0;
    const drip = await serve((_req, res) => {
      res.writeHead(200);
      const t = setInterval(() => {
        if (res.destroyed) return clearInterval(t);
        res.write('x');
        sent++;
      }, 20);
      res.on('close', () => clearInterval(t));
    });
    const slow = await fetchFeedPage(`${drip.url}/feed`, { ...allow, timeoutMs: 300 });
    expect(slow).toMatchObject({ status: 'error', code: 'feed_timeout' });
    const got = (slow as { bytes: number }).bytes;
    expect(got).toBeGreaterThan(0);
    expect(got).toBeLessThanOrEqual(sent);
  });

  it('cuts a gzip bomb at the cap on its decompressed bytes', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
    expect(bomb.length).toBeLessThan(100 * 1024);
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'application/xml' });
      res.end(bomb);
    });
    const cap = 1024 * 1024;
    const page = await fetchFeedPage(`${s.url}/feed.xml`, { ...allow, maxBytes: cap });
    expect(page).toMatchObject({ status: 'error', code: 'feed_too_large' });
    expect((page as { bytes: number }).bytes).toBeLessThanOrEqual(cap + 64 * 1024);
  });

  it('reads gzip, zlib and raw deflate, and br bodies; refuses a body that is not what its encoding says', async () => {
    const text = 'sku,title\n1,Oud Wood\n'.repeat(50);
    const bodies: Record<string, Buffer> = {
      gzip: zlib.gzipSync(text),
      deflate: zlib.deflateSync(text),
      'raw-deflate': zlib.deflateRawSync(text),
      br: zlib.brotliCompressSync(text),
      broken: Buffer.from('not gzip at all'),
      zstd: Buffer.from('?'),
    };
    const s = await serve((req, res) => {
      const name = (req.url ?? '').slice(1);
      const encoding = name === 'raw-deflate' ? 'deflate' : name === 'broken' ? 'gzip' : name;
      res.writeHead(200, { 'content-encoding': encoding });
      res.end(bodies[name]);
    });
    for (const name of ['gzip', 'deflate', 'raw-deflate', 'br']) {
      expect(await fetchFeedPage(`${s.url}/${name}`, allow)).toMatchObject({ status: 200, body: text });
    }
    expect(await fetchFeedPage(`${s.url}/broken`, allow)).toMatchObject({ code: 'feed_unreadable' });
    expect(await fetchFeedPage(`${s.url}/zstd`, allow)).toMatchObject({ code: 'feed_unreadable' });
  });

  it('decodes the charset the Content-Type or the XML declaration names: windows-1256 Arabic', async () => {
    // "العطر" in windows-1256
    const arabic = Buffer.from([0xc7, 0xe1, 0xda, 0xd8, 0xd1]);
    const csv = Buffer.concat([Buffer.from('id,title\n1,'), arabic, Buffer.from('\n')]);
    const xml = Buffer.concat([
      Buffer.from('<?xml version="1.0" encoding="windows-1256"?><rss><title>'),
      arabic,
      Buffer.from('</title></rss>'),
    ]);
    const s = await serve((req, res) => {
      if (req.url === '/feed.csv') {
        res.writeHead(200, { 'content-type': 'text/csv; charset=windows-1256' });
        return res.end(csv);
      }
      if (req.url === '/unknown') {
        res.writeHead(200, { 'content-type': 'text/csv; charset=x-unheard-of' });
        return res.end('a');
      }
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(xml);
    });
    expect(await fetchFeedPage(`${s.url}/feed.csv`, allow)).toMatchObject({ body: 'id,title\n1,العطر\n' });
    expect(await fetchFeedPage(`${s.url}/feed.xml`, allow)).toMatchObject({
      body: '<?xml version="1.0" encoding="windows-1256"?><rss><title>العطر</title></rss>',
    });
    expect(await fetchFeedPage(`${s.url}/unknown`, allow)).toMatchObject({ code: 'feed_unreadable' });
  });

  it('says the HTTP status of a failed answer, with what to do, never the query or the access header', async () => {
    const s = await serve((req, res) => {
      res.writeHead(Number((req.url ?? '').slice(1, 4)));
      res.end('boom');
    });
    const failed = await fetchFeedPage(`${s.url}/500?consumer_secret=cs_123`, {
      ...allow,
      headers: { Authorization: 'Bearer tok_456' },
    });
    expect(failed).toEqual({
      status: 'error',
      code: 'feed_http_error',
      message: "The shop's server answered HTTP 500: it failed: try again later, or tell the shop's host",
      url: `${s.url}/500`,
      httpStatus: 500,
      bytes: 0,
    });
    expect(JSON.stringify(failed)).not.toMatch(/cs_123|tok_456/);
    expect(await fetchFeedPage(`${s.url}/403`, allow)).toMatchObject({ httpStatus: 403, message: /access token/ });
    expect(await fetchFeedPage(`${s.url}/404`, allow)).toMatchObject({ httpStatus: 404, message: /no feed/ });
  });

  it('says a host that is not there, refuses or cuts the connection is unreachable', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('only part');
      setTimeout(() => res.destroy(), 10);
    });
    const cut = await fetchFeedPage(`${s.url}/feed`, allow);
    expect(cut).toMatchObject({ status: 'error', code: 'feed_unreachable', bytes: 9 });
    await s.close();
    const refused = await fetchFeedPage(`${s.url}/feed`, allow);
    expect(refused).toMatchObject({ code: 'feed_unreachable', message: /refused the connection/ });
    const missing = await fetchFeedPage('https://no-such-host.invalid/feed', {});
    expect(missing).toMatchObject({ code: 'feed_unreachable', message: /was not found/ });
  });
});
