import fp from 'fastify-plugin';
import { createBatchWriter } from '../../lib/batch-writer.ts';
import { AppError, isDatabaseUnavailable } from '../../lib/errors.ts';
import { type EventBatch, type StoredEvents, writeEvents } from '../../services/events.ts';

export type { EventBatch } from '../../services/events.ts';

declare module 'fastify' {
  interface FastifyInstance {
    eventWriter: {
      /** resolves once the events are committed: a 202 may be answered then, never before */
      write(batch: EventBatch): Promise<StoredEvents>;
    };
  }
}

/** A group commit waits at most this long for more requests to share its transaction… */
export const GROUP_COMMIT_MS = 4;
/** …or starts at once when this many events wait. */
export const GROUP_COMMIT_EVENTS = 1000;

interface Pending extends EventBatch {
  resolve: (r: StoredEvents) => void;
  reject: (err: unknown) => void;
}

/**
 * Stores events with group commit: concurrent requests' events go into one
 * transaction (services/events.ts), written a few milliseconds after the first
 * arrives, and each request is answered only after that transaction commits.
 */
export default fp(
  async (app) => {
    const commit = async (batch: Pending[]) => {
      const stored = await writeEvents(app.db, batch, {
        cipher: app.leadCipher,
        attributionWindowDays: app.config.attributionWindowDays,
      });
      for (const [p, b] of batch.entries()) b.resolve(stored[p] as StoredEvents);
    };

    const unavailableError = () =>
      new AppError(503, 'database_unavailable', 'Events could not be stored, retry shortly', undefined, {
        'retry-after': '5',
      });

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
              b.reject(isDatabaseUnavailable(e) ? unavailableError() : e);
            });
          }
          return;
        }
        if (!unavailable) app.log.error({ err }, 'event batch failed');
        const answer = unavailable ? unavailableError() : err;
        for (const b of batch) b.reject(answer);
      },
    });
    app.addHook('onClose', () => writer.close());

    app.decorate('eventWriter', {
      write(batch: EventBatch) {
        return new Promise<StoredEvents>((resolve, reject) => {
          writer.add({ ...batch, resolve, reject });
        });
      },
    });
  },
  { name: 'event-writer', dependencies: ['database', 'leads'] },
);
