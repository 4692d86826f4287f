import fp from 'fastify-plugin';
import { createBatchWriter } from '../../lib/batch-writer.ts';
import { CommitGuard, databaseTimeout, writeOutcomeUnknown } from '../../lib/deadline.ts';
import { AppError, isDatabaseUnavailable } from '../../lib/errors.ts';
import { type EventBatch, type StoredEvents, writeEvents } from '../../services/events.ts';

export type { EventBatch } from '../../services/events.ts';

declare module 'fastify' {
  interface FastifyInstance {
    eventWriter: {
      /**
       * resolves once the events are committed: a 202 may be answered then, never before.
       * Rejects 503 `database_unavailable` when nothing was stored, or `write_outcome_unknown`
       * when the commit was sent and not confirmed within twice DB_TIMEOUT_MS.
       */
      write(batch: EventBatch): Promise<StoredEvents>;
    };
  }
}

/** A group commit waits at most this long for more requests to share its transaction… */
export const GROUP_COMMIT_MS = 4;
/** …or starts at once when this many events wait. */
export const GROUP_COMMIT_EVENTS = 1000;

/** One transaction and the requests it stores. */
interface Flight {
  guard: CommitGuard;
  members: Pending[];
  /** stops the batch writer's wait on this transaction: its requests have been answered */
  giveUp: () => void;
}

interface Pending extends EventBatch {
  resolve: (r: StoredEvents) => void;
  reject: (err: unknown) => void;
  answered: boolean;
  timer: NodeJS.Timeout | undefined;
  /** the transaction it travels in, once its batch has started */
  flight?: Flight;
}

const unavailableError = () =>
  new AppError(503, 'database_unavailable', 'Events could not be stored, retry shortly', undefined, {
    'retry-after': '5',
  });

function settle(p: Pending, outcome: { stored: StoredEvents } | { error: unknown }): void {
  if (p.answered) return;
  p.answered = true;
  clearTimeout(p.timer);
  if ('stored' in outcome) p.resolve(outcome.stored);
  else p.reject(outcome.error);
}

/**
 * Stores events with group commit: concurrent requests' events go into one
 * transaction (services/events.ts), written a few milliseconds after the first
 * arrives, and each request is answered only after that transaction commits.
 *
 * No request waits on the database for ever. DB_TIMEOUT_MS after it arrived,
 * a request still unanswered is given up: if its transaction has not reached
 * its commit, the transaction is marked so that it rolls back whenever the
 * database answers, and its requests are answered 503 `database_unavailable`
 * (nothing stored: a retry is safe). If the commit was already sent, the
 * answer waits one more DB_TIMEOUT_MS for it, then is 503
 * `write_outcome_unknown` (a retry with the same event_id is stored once).
 */
export default fp(
  async (app) => {
    const timeoutMs = app.config.dbTimeoutMs;

    const commit = async (batch: Pending[]) => {
      // requests answered while they waited for their turn are not written
      const members = batch.filter((p) => !p.answered);
      if (members.length === 0) return;
      let giveUp = () => {};
      const givenUp = new Promise<'given-up'>((resolve) => {
        giveUp = () => resolve('given-up');
      });
      const flight: Flight = { guard: new CommitGuard(), members, giveUp };
      for (const p of members) p.flight = flight;
      const work = writeEvents(app.db, members, {
        cipher: app.leadCipher,
        attributionWindowDays: app.config.attributionWindowDays,
        emailPicks: app.config.smtp !== null,
        guard: flight.guard,
      });
      const outcome = await Promise.race([work, givenUp]);
      if (outcome === 'given-up') {
        // its requests are answered; what the database does with it later is logged only
        work.catch((err) =>
          app.log.warn({ err: err.name === 'AbandonedWrite' ? undefined : err }, 'event write given up'),
        );
        return;
      }
      for (const [i, p] of members.entries()) settle(p, { stored: outcome[i] as StoredEvents });
    };

    function onDeadline(p: Pending): void {
      const flight = p.flight;
      if (!flight) {
        settle(p, { error: databaseTimeout('Events') });
        return;
      }
      if (flight.guard.abandon()) {
        for (const m of flight.members) settle(m, { error: databaseTimeout('Events') });
        flight.giveUp();
        return;
      }
      // the commit may be on its way: wait for its answer a while longer
      p.timer = setTimeout(() => {
        app.log.warn({ requests: flight.members.length }, 'event commit not confirmed in time');
        for (const m of flight.members) settle(m, { error: writeOutcomeUnknown() });
        flight.giveUp();
      }, timeoutMs);
    }

    const writer = createBatchWriter<Pending>({
      write: commit,
      maxWaitMs: GROUP_COMMIT_MS,
      maxBatch: GROUP_COMMIT_EVENTS,
      weight: (p) => p.events.length,
      async onFailure(batch, err) {
        const unavailable = isDatabaseUnavailable(err);
        if (!unavailable && batch.length > 1) {
          // one request's events must not fail everyone's: commit each alone
          for (const b of batch) {
            await commit([b]).catch((e) => {
              app.log.error({ err: e }, 'event batch failed');
              settle(b, { error: isDatabaseUnavailable(e) ? unavailableError() : e });
            });
          }
          return;
        }
        if (!unavailable) app.log.error({ err }, 'event batch failed');
        // a connection lost after the commit was sent leaves the outcome unknown: say so
        const committing = batch.some((b) => b.flight?.guard.committing);
        const error = unavailable ? (committing ? writeOutcomeUnknown() : unavailableError()) : err;
        for (const b of batch) settle(b, { error });
      },
    });
    app.addHook('onClose', () => writer.close());

    app.decorate('eventWriter', {
      write(batch: EventBatch) {
        return new Promise<StoredEvents>((resolve, reject) => {
          const p: Pending = { ...batch, resolve, reject, answered: false, timer: undefined };
          p.timer = setTimeout(onDeadline, timeoutMs, p);
          writer.add(p);
        });
      },
    });
  },
  { name: 'event-writer', dependencies: ['database', 'leads'] },
);
