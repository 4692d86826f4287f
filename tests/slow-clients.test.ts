/**
 * Slow clients (slow-loris) and oversized bodies are cut off by the server's
 * timeouts and body limits, over real sockets, while everyone else is served.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

const TIMEOUT_MS = 1500;
let app: TestApp;
let port: number;
let key: string;

beforeAll(async () => {
  app = await buildTestApp({ REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
  ({ key } = await createMerchantWithKey(app, { mode: 'test' }));
});
afterAll(() => closeTestApp(app));

/** Opens a socket, writes `head`, then drips `drip` every 200 ms; resolves with what came back and when it closed. */
function slowClient(head: string, drip: string) {
  return new Promise<{ answer: string; closedAfterMs: number }>((resolve) => {
    const started = Date.now();
    let answer = '';
    const socket: Socket = connect(port, '127.0.0.1', () => socket.write(head));
    const timer = setInterval(() => {
      if (!socket.destroyed) socket.write(drip);
    }, 200);
    socket.on('data', (d) => {
      answer += d.toString('utf8');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, closedAfterMs: Date.now() - started });
    });
    // never more than 15 s, whatever happens
    setTimeout(() => socket.destroy(), 15_000).unref();
  });
}

describe('slow clients and oversized bodies', () => {
  it('a client dripping headers is cut off, with a JSON 408, while others are served', async () => {
    const loris = Array.from({ length: 20 }, () =>
      slowClient('POST /api/widget/verify HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n'),
    );
    // the service keeps answering everyone else meanwhile
    const res = await fetch(`http://127.0.0.1:${port}/api/widget/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key }),
    });
    expect(res.status).toBe(200);
    for (const r of await Promise.all(loris)) {
      expect(r.closedAfterMs).toBeLessThan(TIMEOUT_MS + 4000);
      expect(r.answer).toMatch(/^HTTP\/1\.1 408/);
      expect(JSON.parse(r.answer.slice(r.answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'request_timeout' });
    }
  }, 30_000);

  it('a client dripping its body is cut off the same way', async () => {
    const r = await slowClient(
      'POST /api/widget/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{',
      ' ',
    );
    expect(r.closedAfterMs).toBeLessThan(TIMEOUT_MS + 4000);
    expect(r.answer).toMatch(/^HTTP\/1\.1 408/);
  }, 30_000);

  it('oversized headers and bytes that are not HTTP get the JSON error shape too', async () => {
    const big = await slowClient(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, '');
    expect(big.answer).toMatch(/^HTTP\/1\.1 431/);
    expect(big.answer).toContain('"code":"headers_too_large"');
    const junk = await slowClient('\u0000\u0001 NOT HTTP AT ALL\r\n\r\n', '');
    expect(junk.answer).toMatch(/^HTTP\/1\.1 400/);
    expect(junk.answer).toContain('"code":"bad_request"');
  }, 30_000);

  it('a body announced over the limit is refused with 413 JSON before it is read', async () => {
    const r = await slowClient(
      `POST /api/widget/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n{`,
      'x'.repeat(1000),
    );
    expect(r.answer).toMatch(/^HTTP\/1\.1 413/);
    expect(r.answer).toContain('"code":"payload_too_large"');
    expect(r.closedAfterMs).toBeLessThan(TIMEOUT_MS + 4000);
  }, 30_000);
});

describe('shutting down', () => {
  it('finishes the request in flight; one that completes while closing gets a JSON 503', async () => {
    const closing = await buildTestApp({}, (a) => {
      a.get('/test-slow', { schema: { hide: true } }, async () => {
        await new Promise((r) => setTimeout(r, 600));
        return { done: true };
      });
    });
    await closing.listen({ port: 0, host: '127.0.0.1' });
    const p = (closing.server.address() as { port: number }).port;
    const exchange = (first: string, rest: string, restAfterMs: number) =>
      new Promise<string>((resolve) => {
        let text = '';
        const socket = connect(p, '127.0.0.1', () => {
          socket.write(first);
          if (rest) setTimeout(() => socket.write(rest), restAfterMs);
        });
        socket.on('data', (d) => {
          text += d.toString('utf8');
        });
        socket.on('close', () => resolve(text));
        socket.on('error', () => resolve(text));
      });
    // in flight when the close begins
    const inFlight = exchange('GET /test-slow HTTP/1.1\r\nHost: x\r\n\r\n', '', 0);
    // headers half sent before the close, finished after it
    const late = exchange('GET /healthz HTTP/1.1\r\nHost: x\r\n', '\r\n', 300);
    await new Promise((r) => setTimeout(r, 100));
    const closed = closing.close();
    const [a, b] = await Promise.all([inFlight, late]);
    await closed;
    await closing.dropDatabase();
    expect(a).toMatch(/^HTTP\/1\.1 200/);
    expect(a).toMatch(/connection: close/i);
    expect(a).toContain('{"done":true}');
    expect(b).toMatch(/^HTTP\/1\.1 503/);
    expect(b).toMatch(/retry-after: 1/i);
    expect(b).toContain('"code":"shutting_down"');
  }, 30_000);
});
