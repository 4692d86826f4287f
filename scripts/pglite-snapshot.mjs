// `npm run db:snapshot`: a new database's folder as the installed PGlite's initdb makes it, written to
// db/pglite-initdb-<version>.tar.gz. The embedded database loads a new folder from it instead of
// running initdb (db/pglite.worker.mjs): the same files, without initdb's memory. Run it after
// upgrading PGlite (tests/pglite-snapshot.test.ts fails until it is there).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const { version } = JSON.parse(
  readFileSync(join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8'),
);
const pg = await PGlite.create();
await pg.query('select 1');
const dump = await pg.dumpDataDir('gzip');
await pg.close();
const file = join(ROOT, 'db', `pglite-initdb-${version}.tar.gz`);
const bytes = Buffer.from(await dump.arrayBuffer());
writeFileSync(file, bytes);
process.stdout.write(`${file.slice(ROOT.length + 1)}  ${(bytes.length / 1048576).toFixed(1)} MB\n`);
