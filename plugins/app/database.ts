import fp from 'fastify-plugin';
import { createDatabase, type Database, type Db } from '../../db/client.ts';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    database: Database;
  }
}

export interface DatabasePluginOptions {
  /** an already open database (tests, the CLI); otherwise one is created from config */
  database?: Database;
}

export default fp<DatabasePluginOptions>(
  async (app, opts) => {
    const database =
      opts.database ??
      (await createDatabase(app.config, {
        onLost: (err) => app.log.error({ err }, 'the embedded database thread ended: opening the database again'),
      }));
    app.addHook('onClose', async () => {
      await database.close();
    });
    // idempotent, and serialised across instances by an advisory lock
    await database.migrate();
    app.decorate('database', database);
    app.decorate('db', database.db);
  },
  { name: 'database' },
);
