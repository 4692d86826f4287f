import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(() => closeTestApp(app));

const verify = (key: string) =>
  app.inject({
    method: 'POST',
    url: '/api/widget/verify',
    payload: { api_key: key },
    headers: { origin: 'https://shop.example' },
  });

describe('verify while the database is unreachable (docs/operations.md)', () => {
  it('answers the readiness last read when its read fails for a lost connection, never a 503 for a readiness it has', async () => {
    const read = await createMerchantWithKey(app, { slug: 'vs-read' });
    const first = await verify(read.key);
    expect(first.statusCode).toBe(200);

    const select = app.db.select.bind(app.db);
    const cut = Object.assign(new Error('write ECONNRESET'), { code: 'ECONNRESET' });
    (app.db as { select: unknown }).select = () => ({
      from: () => ({
        where: () => {
          const failed = Promise.reject(cut);
          return Object.assign(failed, { groupBy: () => failed });
        },
      }),
    });
    try {
      const again = await verify(read.key);
      expect(again.statusCode).toBe(200);
      expect(again.json().catalog).toEqual(first.json().catalog);
      // a query that is wrong, not a database away, is not hidden by the last read
      (app.db as { select: unknown }).select = () => {
        throw new Error('column "x" does not exist');
      };
      expect((await verify(read.key)).statusCode).toBe(500);
    } finally {
      (app.db as { select: unknown }).select = select;
    }
  });
});
