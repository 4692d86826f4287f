import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN_FAILURES_PER_MINUTE } from '../../auth/admin-token.ts';
import { adminHeaders, buildTestApp, closeTestApp, type TestApp } from '../helper.ts';

/** Guessing is throttled per client address: admin tokens. */
let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
});
afterAll(() => closeTestApp(app));

const admin = (authorization: string, remoteAddress: string) =>
  app.inject({ method: 'GET', url: '/api/admin/merchants', headers: { authorization }, remoteAddress });

describe('admin token guesses', () => {
  it(`an address that sends ${ADMIN_TOKEN_FAILURES_PER_MINUTE} wrong tokens has its wrong tokens refused for the minute; the right token and other addresses are served`, async () => {
    for (let i = 0; i < ADMIN_TOKEN_FAILURES_PER_MINUTE; i++) {
      expect((await admin(`Bearer guess-${i}`, '203.0.113.7')).statusCode).toBe(401);
    }
    const blocked = await admin('Bearer guess-x', '203.0.113.7');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ code: 'rate_limited' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // the right token is served from that address (tests/security/guesses.test.ts, finding 12)
    expect((await admin(adminHeaders.authorization, '203.0.113.7')).statusCode).toBe(200);
    // another address's guesses are its own
    expect((await admin('Bearer guess-y', '203.0.113.8')).statusCode).toBe(401);
  });
});

describe('the flood guard per address', () => {
  it('counts every widget request of an address, junk keys and unreadable bodies included, before the body is read', async () => {
    const guarded = await buildTestApp({ REDIS_URL: undefined, ADDRESS_RATE_LIMIT: '5' });
    try {
      const junk = (i: number, remoteAddress: string) =>
        guarded.inject({
          method: 'POST',
          url: '/api/widget/verify',
          payload: i % 2 ? `{"api_key":"pk_live_junk${i}"}` : '{{{ not json',
          headers: { 'content-type': 'application/json' },
          remoteAddress,
        });
      for (let i = 0; i < 5; i++) expect((await junk(i, '203.0.113.20')).statusCode).not.toBe(429);
      const sixth = await junk(5, '203.0.113.20');
      expect(sixth.statusCode).toBe(429);
      expect(sixth.json()).toMatchObject({ code: 'rate_limited' });
      expect(sixth.headers['access-control-allow-origin']).toBe('*');
      expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(0);
      expect((await junk(6, '203.0.113.21')).statusCode).not.toBe(429);
    } finally {
      await closeTestApp(guarded);
    }
  });
});

describe('open connections', () => {
  it('past MAX_CONNECTIONS a new connection is closed on arrival, and served again once one is let go', async () => {
    const { connect } = await import('node:net');
    const capped = await buildTestApp({ REDIS_URL: undefined, MAX_CONNECTIONS: '2' });
    try {
      await capped.listen({ port: 0, host: '127.0.0.1' });
      const port = (capped.server.address() as { port: number }).port;
      const open = () =>
        new Promise<import('node:net').Socket>((resolve) => {
          const s = connect(port, '127.0.0.1', () => resolve(s));
        });
      const answer = (s: import('node:net').Socket) =>
        new Promise<string>((resolve) => {
          let got = '';
          s.on('data', (d) => {
            got += d.toString();
          });
          s.on('close', () => resolve(got));
          s.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
        });
      const idle = [await open(), await open()];
      await new Promise((r) => setTimeout(r, 50));
      // the third: closed without an answer
      expect(await answer(await open())).toBe('');
      idle[0]?.destroy();
      await new Promise((r) => setTimeout(r, 50));
      expect(await answer(await open())).toMatch(/^HTTP\/1\.1 200/);
      idle[1]?.destroy();
    } finally {
      await closeTestApp(capped);
    }
  });
});

describe('a client that disconnects', () => {
  it('is logged as a closed request, never as "database unavailable"', async () => {
    const { connect } = await import('node:net');
    const lines: string[] = [];
    const logged = await buildTestApp({ REDIS_URL: undefined, LOG_LEVEL: 'info' }, undefined, {
      logStream: { write: (l: string) => void lines.push(l) },
    });
    try {
      await logged.listen({ port: 0, host: '127.0.0.1' });
      const port = (logged.server.address() as { port: number }).port;
      await new Promise<void>((resolve) => {
        const s = connect(port, '127.0.0.1', () => {
          s.write(
            'POST /api/widget/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"api_key":',
          );
          setTimeout(() => {
            s.destroy();
            resolve();
          }, 100);
        });
      });
      await new Promise((r) => setTimeout(r, 300));
      const text = lines.join('\n');
      expect(text).not.toMatch(/database unavailable/);
      expect(text).toMatch(/client closed the request/);
    } finally {
      await closeTestApp(logged);
    }
  });
});
