import fp from 'fastify-plugin';
import type { Config } from '../../config.ts';
import { dataFile } from '../../db/data-files.ts';
import { type DemoInfo, ensureDemo } from '../../services/demo.ts';

declare module 'fastify' {
  interface FastifyInstance {
    demo: {
      /** the demo merchant, its test key and this start's feed sync; null when the demo is off (or not seeded yet) */
      info(): DemoInfo | null;
    };
  }
}

/**
 * Where the demo key's plaintext is kept between starts: beside the embedded
 * database on disk, in its folder. Nowhere otherwise (in memory, PostgreSQL): a new key each start.
 */
export function demoKeyFile(config: Pick<Config, 'database'>): string | null {
  return config.database.kind === 'pglite' && config.database.dataDir
    ? dataFile(config.database.dataDir, 'demo-key')
    : null;
}

/**
 * Seeds the demo merchant, its test key and its product feed when SEED_DEMO
 * is on (the embedded default), so the demo storefront and the printed curl
 * lines work on a first start. It runs in onReady: after every plugin has
 * loaded (migrations applied, the catalog snapshot built at the catalog
 * plugin's registration, which the feed's matching needs) and before the
 * server listens, so no request sees a half-seeded demo.
 */
export default fp(
  async (app) => {
    let info: DemoInfo | null = null;
    app.decorate('demo', { info: () => info });
    if (!app.config.seedDemo) return;
    app.addHook('onReady', async () => {
      info = await ensureDemo(app.db, app.config, demoKeyFile(app.config), app.catalog.current());
    });
  },
  { name: 'demo', dependencies: ['database', 'catalog'] },
);
