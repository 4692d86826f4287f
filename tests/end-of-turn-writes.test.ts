import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { writeAtEndOfTurn } from '../http/end-of-turn-writes.ts';
import { buildTestApp, closeTestApp } from './helper.ts';

const turnEnd = () => new Promise((resolve) => setImmediate(resolve));

function fakeReply(logged: string[], headersSent = false) {
  const log = {
    warn: (_o: unknown, m: string) => logged.push(`warn ${m}`),
    error: (_o: unknown, m: string) => logged.push(`error ${m}`),
  };
  return { raw: { headersSent }, log, request: { url: '/x' } } as unknown as FastifyReply;
}
const request = {} as FastifyRequest;

describe('writeAtEndOfTurn', () => {
  it('holds every answer of a turn and writes them together, in order, when the turn ends', async () => {
    const written: unknown[] = [];
    const logged: string[] = [];
    for (const payload of ['a', 'b', 'c']) {
      writeAtEndOfTurn(request, fakeReply(logged), payload, (_err, p) => written.push(p));
    }
    expect(written).toEqual([]);
    await turnEnd();
    expect(written).toEqual(['a', 'b', 'c']);
    // the next turn starts empty: nothing is written twice
    writeAtEndOfTurn(request, fakeReply(logged), 'd', (_err, p) => written.push(p));
    await turnEnd();
    expect(written).toEqual(['a', 'b', 'c', 'd']);
    expect(logged).toEqual([]);
  });

  it('drops a second send of a reply already written, with a warning, and writes the others', async () => {
    const written: unknown[] = [];
    const logged: string[] = [];
    writeAtEndOfTurn(request, fakeReply(logged, true), 'again', (_err, p) => written.push(p));
    writeAtEndOfTurn(request, fakeReply(logged), 'fresh', (_err, p) => written.push(p));
    await turnEnd();
    expect(written).toEqual(['fresh']);
    expect(logged).toEqual(['warn reply already sent: a second send was dropped']);
  });

  it('an answer that fails to go out does not keep the rest of its turn from going', async () => {
    const written: unknown[] = [];
    const logged: string[] = [];
    writeAtEndOfTurn(request, fakeReply(logged), 'broken', () => {
      throw new Error('socket gone');
    });
    writeAtEndOfTurn(request, fakeReply(logged), 'fine', (_err, p) => written.push(p));
    await turnEnd();
    expect(written).toEqual(['fine']);
    expect(logged).toEqual(['error could not write the answer']);
  });
});

describe('writeAtEndOfTurn on a Fastify route', () => {
  async function appWithHook(lines: string[] = []) {
    const app = Fastify({ logger: { level: 'warn', stream: { write: (l: string) => void lines.push(l) } } });
    const events: string[] = [];
    app.addHook('onSend', writeAtEndOfTurn);
    app.get('/n/:n', (req, reply) => {
      const { n } = req.params as { n: string };
      events.push(`answered ${n}`);
      reply.raw.once('finish', () => events.push(`written ${n}`));
      reply.send({ n });
    });
    // sends, then lets its promise resolve to nothing: Fastify sends the reply a second time
    app.get('/sends-twice', async (_req, reply) => {
      reply.send({ once: true });
    });
    await app.ready();
    return { app, events };
  }

  it('requests read in one turn are all answered before any answer is written', async () => {
    const { app, events } = await appWithHook();
    const [one, two] = await Promise.all([app.inject('/n/1'), app.inject('/n/2')]);
    expect(one.json()).toEqual({ n: '1' });
    expect(two.json()).toEqual({ n: '2' });
    expect(events).toEqual(['answered 1', 'answered 2', 'written 1', 'written 2']);
    await app.close();
  });

  it('a handler that sends and returns nothing gets one answer, and the second send is logged', async () => {
    const lines: string[] = [];
    const { app } = await appWithHook(lines);
    const res = await app.inject('/sends-twice');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ once: true });
    await turnEnd();
    expect(lines.some((l) => l.includes('a second send was dropped'))).toBe(true);
    await app.close();
  });
});

describe('which routes hold their answers to the end of the turn', () => {
  it('only the score route: every other route is sent as Fastify sends it, so a second send is caught there', async () => {
    const app = await buildTestApp({ REDIS_URL: undefined });
    try {
      const lines = app.printRoutes({ includeHooks: true, commonPrefix: false }).split('\n');
      const holding: string[] = [];
      let route = '';
      for (const line of lines) {
        const path = /(\/\S*) \((\w+)/.exec(line);
        if (path) route = `${path[2]} ${path[1]}`;
        else if (line.includes('writeAtEndOfTurn')) holding.push(route);
      }
      expect(holding).toEqual(['POST /api/widget/score']);
    } finally {
      await closeTestApp(app);
    }
  });
});
