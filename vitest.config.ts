import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/global-setup.ts'],
    // each file builds its own app on its own database; PGlite's WASM start is the slow part
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // lets memory checks (tests/fuzz.test.ts) collect garbage before they measure
    execArgv: ['--expose-gc'],
  },
});
