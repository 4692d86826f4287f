import fp from 'fastify-plugin';
import { purgeConsoleSessions } from '../../services/console-users.ts';
import { purgeExpiredEvents } from '../../services/events.ts';
import { purgeExpiredLeads } from '../../services/leads.ts';

const PURGE_EVERY_MS = 6 * 3600 * 1000;

/**
 * Retention: leads older than LEAD_RETENTION_DAYS and widget events older than
 * EVENT_RETENTION_DAYS are deleted when the instance starts and every 6 hours
 * after (on every instance: a purge finds nothing the second time); so are
 * console sessions past their expiry (already refused: this only frees the rows).
 */
export default fp(
  async (app) => {
    const purges = [
      ['leads', () => purgeExpiredLeads(app.db, app.config.leadRetentionDays), app.config.leadRetentionDays],
      ['events', () => purgeExpiredEvents(app.db, app.config.eventRetentionDays), app.config.eventRetentionDays],
      ['console sessions', () => purgeConsoleSessions(app.db), 0],
    ] as const;
    const purge = async () => {
      for (const [what, run, retentionDays] of purges) {
        try {
          const purged = await run();
          if (purged) app.log.info({ purged, retentionDays }, `expired ${what} purged`);
        } catch (err) {
          app.log.warn({ err }, `${what} retention purge failed; next try later`);
        }
      }
    };
    app.addHook('onReady', async () => {
      void purge();
    });
    const timer = setInterval(() => void purge(), PURGE_EVERY_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  },
  { name: 'retention', dependencies: ['database'] },
);
