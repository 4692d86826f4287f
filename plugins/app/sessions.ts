import { sql } from 'drizzle-orm';
import fp from 'fastify-plugin';
import { widgetSessions } from '../../schema/index.ts';

export interface SessionRecord {
  id: string;
  merchantId: string;
  keyId: string;
  test: boolean;
  locale: string;
  /** the normalised quiz and its catalog_mode, as JSON */
  quizJson: string;
  /** [{merchant_product_id, position, match_score, list: recommendations|also_explore}], as JSON */
  shownJson: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    sessions: {
      /** queues a scored session for the database; never delays the answer */
      record(s: SessionRecord): void;
      flush(): Promise<void>;
    };
  }
}

const FLUSH_MS = 250;
const FLUSH_AT = 200;
/** beyond this many waiting (database away), the oldest are dropped, with a warning */
const MAX_QUEUE = 20_000;

/**
 * Records each scored session (merchant, key mode, quiz, locale, products
 * shown with positions) for analytics, in batches written every FLUSH_MS or
 * FLUSH_AT sessions, so the score answer waits for no database write. A
 * re-scored session updates its row. Flushed on shutdown.
 */
export default fp(
  async (app) => {
    let queue: SessionRecord[] = [];
    let flushing: Promise<void> | null = null;

    async function write(batch: SessionRecord[]) {
      // the latest answer of a session wins within a batch
      // Built as text: the quiz and shown lists arrive as JSON already, shared by every
      // session that took the same quiz (serialising them per session cost the answer path).
      const rows = [...new Map(batch.map((s) => [s.id, s])).values()].map(
        (s) =>
          `{"id":${JSON.stringify(s.id)},"merchant_id":${JSON.stringify(s.merchantId)},"key_id":${JSON.stringify(s.keyId)},"test":${s.test},"locale":${JSON.stringify(s.locale)},"quiz":${s.quizJson},"shown":${s.shownJson}}`,
      );
      // One JSON parameter expanded by PostgreSQL: binding thousands of values one by one
      // costs the event loop more than the answers it serves.
      await app.db.execute(sql`
        insert into ${widgetSessions} (id, merchant_id, key_id, test, locale, quiz, shown)
        select id, merchant_id, key_id, test, locale, quiz, shown
        from json_to_recordset(${`[${rows.join(',')}]`}::json)
          as x(id uuid, merchant_id uuid, key_id uuid, test boolean, locale text, quiz json, shown json)
        on conflict (id) do update set quiz = excluded.quiz, shown = excluded.shown, locale = excluded.locale
          -- a session id is the client's: never let one merchant's id overwrite another's session
          where ${widgetSessions.merchantId} = excluded.merchant_id`);
    }

    async function flush(): Promise<void> {
      if (flushing) return flushing;
      if (queue.length === 0) return;
      const batch = queue;
      queue = [];
      flushing = write(batch)
        .catch((err) => {
          app.log.warn({ err, sessions: batch.length }, 'could not record sessions; will retry');
          queue = batch.concat(queue).slice(-MAX_QUEUE);
        })
        .finally(() => {
          flushing = null;
        });
      return flushing;
    }

    const timer = setInterval(() => void flush(), FLUSH_MS);
    timer.unref();
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await flush();
      await flush();
    });

    app.decorate('sessions', {
      record(s: SessionRecord) {
        queue.push(s);
        if (queue.length > MAX_QUEUE) {
          queue.splice(0, queue.length - MAX_QUEUE);
          app.log.warn('session queue full: oldest sessions dropped');
        }
        if (queue.length >= FLUSH_AT) void flush();
      },
      flush,
    });
  },
  { name: 'sessions', dependencies: ['database'] },
);
