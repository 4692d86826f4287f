import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { createDatabase, type Database } from './client.ts';

/**
 * A throwaway PostgreSQL database next to the one `serverUrl` names, for a
 * test file or a benchmark run: created empty, dropped by `drop()` (after
 * the database is closed). Never used by the service itself.
 */
export async function createScratchDatabase(
  serverUrl: string,
  prefix: string,
): Promise<{ database: Database; url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await createDatabase({ database: { kind: 'postgres', url: url.toString() } });
  return {
    database,
    url: url.toString(),
    drop: async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}
