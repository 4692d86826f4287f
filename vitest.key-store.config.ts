import { defineConfig } from 'vitest/config';

/**
 * The key store's tests alone, for its own mutation run (stryker.key-store.config.mjs):
 * `tests/key-store.test.ts` on PostgreSQL and Redis, so the invalidation channel between
 * instances is run too. Other servers: TEST_DATABASE_URL and TEST_REDIS_URL in the environment.
 */
export default defineConfig({
  test: {
    include: ['tests/key-store.test.ts'],
    env: {
      TEST_DATABASE_URL: process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test',
      TEST_REDIS_URL: process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379',
    },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
