/** Says which backends this run uses, so tests skipped for lack of one are never skipped silently. */
export default function setup() {
  const db = process.env.TEST_DATABASE_URL ? 'PostgreSQL (TEST_DATABASE_URL)' : 'PGlite in memory';
  const redis = process.env.TEST_REDIS_URL
    ? 'Redis (TEST_REDIS_URL)'
    : 'none — tests that need Redis are skipped (set TEST_REDIS_URL to run them)';
  const pgOnly = process.env.TEST_DATABASE_URL
    ? ''
    : '\n  PostgreSQL-only tests (concurrent migrations) are skipped (set TEST_DATABASE_URL to run them)';
  process.stdout.write(`\nTest backends — database: ${db}; rate-limit store: ${redis}${pgOnly}\n\n`);
}
