import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createDatabase } from '../db/client.ts';
import { merchants } from '../schema/index.ts';
import { createTestDatabase, TEST_DATABASE_URL } from './helper.ts';

describe('migrations', () => {
  it('apply on an empty database and again without change', async () => {
    const { database, drop } = await createTestDatabase();
    await database.migrate();
    await database.db.insert(merchants).values({ name: 'Keep me', slug: 'keep-me' });
    await database.migrate();
    const rows = await database.db.select().from(merchants);
    expect(rows.map((r) => r.slug)).toEqual(['keep-me']);
    await database.close();
    await drop();
  });

  it.runIf(TEST_DATABASE_URL)('are safe when several instances start at once', async () => {
    const { database, url, drop } = await createTestDatabase();
    const others = await Promise.all(
      Array.from({ length: 4 }, () => createDatabase({ database: { kind: 'postgres', url: url as string } })),
    );
    await Promise.all([database, ...others].map((d) => d.migrate()));
    const applied = await database.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    const journal = (await import('../drizzle/meta/_journal.json', { with: { type: 'json' } })).default;
    expect((applied as unknown as { n: number }[])[0]?.n).toBe(journal.entries.length);
    await Promise.all([database, ...others].map((d) => d.close()));
    await drop();
  });
});
