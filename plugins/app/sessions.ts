import fp from 'fastify-plugin';
import { createBatchWriter } from '../../lib/batch-writer.ts';
import { Cache } from '../../lib/cache.ts';
import { databaseTimeout, withDeadline } from '../../lib/deadline.ts';
import {
  type ScoredSession,
  type SessionKey,
  type SessionRecord,
  sessionOfKey,
  writeSessions,
} from '../../services/sessions.ts';

// importers (routes/widget/score.ts, tests) take these from here
export {
  answerId,
  type RecordedAnswer,
  recordedAnswer,
  type SessionRecord,
} from '../../services/sessions.ts';

declare module 'fastify' {
  interface FastifyInstance {
    sessions: {
      /** queues a scored session for the database; never delays the answer */
      record(s: SessionRecord): void;
      flush(): Promise<void>;
      /**
       * The score session (ids are the client's within a merchant and kind of key) if it was
       * answered for this key, with its locale and products shown, else null: this instance's
       * recent ones from memory, else the database
       */
      scoredWith(sessionId: string, key: SessionKey): Promise<ScoredSession | null>;
    };
  }
}

/**
 * A batch is written at most this long after its first session was queued
 * (not on a fixed interval: an idle instance sets no timer), or at once after
 * the write in flight.
 */
const FLUSH_MS = 250;
const FLUSH_AT = 200;
/** beyond this many waiting (database away), the oldest are dropped, with a warning */
const MAX_QUEUE = 20_000;
/** answer ids known to be stored, remembered up to this many (an id forgotten is re-sent once) */
const STORED_ANSWERS = 50_000;

/**
 * Records each scored session (merchant, key mode, quiz, locale, products
 * shown with positions) for analytics, in batches (services/sessions.ts), so
 * the score answer waits for no database write. A batch that fails is queued
 * again and retried. Flushed on shutdown.
 */
export default fp(
  async (app) => {
    const storedAnswers = new Cache<string, true>({
      name: 'stored-answer-ids',
      max: STORED_ANSWERS,
      invalidatedBy:
        'never wrong, only forgotten: an id evicted is sent once more and the insert skips it (on conflict do nothing)',
    });
    const writer = createBatchWriter<SessionRecord>({
      write: (batch) => writeSessions(app.database.executePrepared, batch, storedAnswers),
      maxWaitMs: FLUSH_MS,
      maxBatch: FLUSH_AT,
      maxQueued: MAX_QUEUE,
      // nobody waits on a session record: fewer, fuller writes cost the database and this process less
      chainWrites: false,
      onFailure(batch, err) {
        app.log.warn({ err, sessions: batch.length }, 'could not record sessions; will retry');
        return 'requeue';
      },
      onDrop(dropped) {
        app.log.warn({ dropped }, 'session queue full: oldest sessions dropped');
      },
    });
    app.addHook('onClose', () => writer.close());

    // sessions scored here lately, by id: a lead that follows its score is checked without a query,
    // even before the session's batch is written
    // (the record is the one queued: its answer is shared with every session that got it)
    const recent = new Cache<string, SessionRecord>({
      name: 'recent-session-keys',
      max: 100_000,
      invalidatedBy: 'never wrong: a session keeps its key; an id forgotten is read from the database',
    });
    app.decorate('sessions', {
      record(s: SessionRecord) {
        recent.set(`${s.keyId} ${s.id}`, s);
        writer.add(s);
      },
      flush: writer.flush,
      async scoredWith(sessionId: string, key: SessionKey) {
        const s = recent.get(`${key.id} ${sessionId}`);
        if (s) return { locale: s.locale, shown: JSON.parse(s.answer.shownJson) as unknown };
        return withDeadline(sessionOfKey(app.db, sessionId, key), app.config.dbTimeoutMs, () =>
          databaseTimeout('The lead'),
        );
      },
    });
  },
  { name: 'sessions', dependencies: ['database'] },
);
