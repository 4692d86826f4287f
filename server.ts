import { existsSync } from 'node:fs';
import { ConfigError, loadConfig } from './config.ts';
import { createDatabase, type Database, DatabaseInUseError } from './db/client.ts';

if (existsSync('.env')) process.loadEnvFile('.env');

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) fail(err.message);
  throw err;
}

// The database opens (the embedded one in a thread of its own) while the rest of the service's
// modules load: about 0.3 s of a start (docs/operations.md, Footprint). Until the app has a logger,
// a lost embedded database is reported on stderr.
let onLost = (err: Error): void => {
  process.stderr.write(`the embedded database thread ended: ${err.message}\n`);
};
const opening: Promise<Database> = createDatabase(config, { onLost: (err) => onLost(err) });
opening.catch(() => {}); // awaited below
const [{ buildApp }, { default: closeWithGrace }] = await Promise.all([import('./app.ts'), import('close-with-grace')]);

let app: Awaited<ReturnType<typeof buildApp>>;
try {
  app = await buildApp({ config, database: await opening });
  onLost = (err) => {
    app.log.error({ err }, 'the embedded database thread ended: opening the database again');
  };
  await app.ready();
} catch (err) {
  if (err instanceof DatabaseInUseError) fail(err.message);
  fail(`Start-up failed: ${(err as Error).message}`);
}

closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'closing after an uncaught error');
  else app.log.info({ signal }, 'shutting down');
  await app.close();
});

try {
  await app.listen({ port: config.port, host: config.host });
} catch (err) {
  fail(`Could not listen on ${config.host}:${config.port}: ${(err as Error).message}`);
}

const base = config.publicBaseUrl;
// seeded by the demo plugin while the app got ready (SEED_DEMO); null when the demo is off
const demo = app.demo.info();
const lines = [
  '',
  `Sillage widget service is running at ${base}`,
  `  database: ${config.database.kind === 'postgres' ? 'PostgreSQL' : config.database.dataDir ? `embedded PGlite (${config.database.dataDir})` : 'embedded PGlite (in memory)'}`,
  `  API docs: ${base}/docs`,
];
if (demo) {
  lines.push(
    `  demo storefront: ${base}/demo (English: ${base}/demo?lang=en)`,
    `  demo merchant "${demo.merchant.slug}", test key: ${demo.key}`,
    ...(demo.feed
      ? [
          `  demo product feed: ${demo.feed.upserted} products, ${demo.feed.matched} matched to our catalog, ${demo.feed.partial} partial, ${demo.feed.unmatched} unmatched`,
        ]
      : []),
    `  merchant console: ${base}/console (sign in as ${demo.console.email}, password ${demo.console.password})`,
    '  try it:',
    `    curl -s ${base}/api/widget/verify -H 'content-type: application/json' -d '{"api_key":"${demo.key}"}'`,
    `    curl -s ${base}/api/widget/score -H 'content-type: application/json' -d '{"api_key":"${demo.key}","locale":"en","quiz":{"families":["oud","amber"],"accord_ratings":{"oud":"love","citrus":"avoid"},"season":"winter","occasion":"evening"}}'`,
    '  for a shopper who loves Lattafa Khamrah:',
    `    curl -s ${base}/api/widget/score -H 'content-type: application/json' -d '{"api_key":"${demo.key}","locale":"en","quiz":{"loved_perfumes":["lattafa-khamrah-edp"]}}'`,
  );
}
if (!config.adminToken) lines.push('  admin API: off (set ADMIN_TOKEN to enable it)');
process.stdout.write(`${lines.join('\n')}\n\n`);
