import { existsSync } from 'node:fs';
import { ensureWidgetBuilt } from '../widget/build.ts';

/**
 * Says which backends this run uses, so tests skipped for lack of one are
 * never skipped silently, and builds the widget files once before the test
 * files (which run in parallel) serve them.
 */
export default async function setup() {
  const db = process.env.TEST_DATABASE_URL ? 'PostgreSQL (TEST_DATABASE_URL)' : 'PGlite in memory';
  const redis = process.env.TEST_REDIS_URL
    ? 'Redis (TEST_REDIS_URL)'
    : 'none — tests that need Redis are skipped (set TEST_REDIS_URL to run them)';
  const pgOnly = process.env.TEST_DATABASE_URL
    ? ''
    : '\n  PostgreSQL-only tests (concurrent migrations) are skipped (set TEST_DATABASE_URL to run them)';
  const several =
    process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL
      ? ''
      : '\n  Several-instance and fault tests (tests/cluster.test.ts, tests/faults.test.ts) are skipped (set TEST_DATABASE_URL and TEST_REDIS_URL to run them)';
  const chromium = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
    (p) => p && existsSync(p),
  );
  const browser = chromium
    ? `Chromium (${chromium})`
    : 'none — the browser tests are skipped (apt-get install -y chromium, or set CHROMIUM_PATH)';
  const built = await ensureWidgetBuilt();
  process.stdout.write(
    `\nTest backends — database: ${db}; rate-limit store: ${redis}; browser: ${browser}${pgOnly}${several}\n` +
      `Widget files: ${built ? 'built now' : 'up to date'} (dist/widget/v1)\n\n`,
  );
}
