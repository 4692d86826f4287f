import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase, rowsOf } from '../db/client.ts';
import { pgliteSnapshot } from '../db/pglite-thread.ts';

const dir = mkdtempSync(join(tmpdir(), 'sillage-snapshot-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** PostgreSQL's cluster identifier: initdb draws a new one every time it runs. */
async function clusterOf(dataDir: string | null): Promise<string> {
  const database = await createDatabase({ database: { kind: 'pglite', dataDir } });
  try {
    await database.migrate();
    const [row] = rowsOf<{ id: string }>(
      await database.db.execute(sql`select system_identifier::text as id from pg_control_system()`),
    );
    return row?.id as string;
  } finally {
    await database.close();
  }
}

describe("a new embedded database is loaded from the snapshot of initdb's folder (docs/operations.md)", () => {
  it('ships the snapshot for the installed PGlite version (npm run db:snapshot after an upgrade)', () => {
    expect(pgliteSnapshot()).toMatch(/db\/pglite-initdb-\d+\.\d+\.\d+\.tar\.gz$/);
  });

  it('on an empty folder, and in memory, with no initdb run: every new database is the same cluster, migrated and kept', async () => {
    const a = await clusterOf(join(dir, 'a'));
    const b = await clusterOf(join(dir, 'b'));
    const memory = await clusterOf(null);
    // initdb would have drawn three identifiers
    expect(new Set([a, b, memory]).size).toBe(1);
    // reopened, the folder is what was written, not loaded again
    expect(await clusterOf(join(dir, 'a'))).toBe(a);
  }, 120_000);
});

describe("the embedded database's page cache (PGLITE_SHARED_BUFFERS_MB, docs/operations.md)", () => {
  const sharedBuffers = async (sharedBuffersMb?: number) => {
    const database = await createDatabase({ database: { kind: 'pglite', dataDir: null, sharedBuffersMb } });
    try {
      const [row] = rowsOf<{ v: string }>(
        await database.db.execute(sql`select current_setting('shared_buffers') as v`),
      );
      return row?.v;
    } finally {
      await database.close();
    }
  };
  it("is 16 MB, not initdb's 128 MB, unless the configuration names another size", async () => {
    expect(await sharedBuffers()).toBe('16MB');
    expect(await sharedBuffers(48)).toBe('48MB');
  }, 60_000);
});
