import fp from 'fastify-plugin';
import { purgeConsoleSessions } from '../../services/console-users.ts';
import { purgeExpiredEvents } from '../../services/events.ts';
import { purgeExpiredLeads } from '../../services/leads.ts';
import { purgeWebhooks, WEBHOOK_KEEP_DAYS } from '../../services/platforms.ts';

/** How often the retention purge runs (once for all instances: plugins/app/jobs.ts). */
export const PURGE_EVERY_MINUTES = 6 * 60;

/**
 * Retention: leads older than LEAD_RETENTION_DAYS and widget events older than
 * EVENT_RETENTION_DAYS are deleted when the service starts and every 6 hours
 * after, as the background job `retention.purge` (one run for all instances);
 * so are console sessions past their expiry (already refused: this only frees
 * the rows), and platform webhooks worked more than a week ago. A purge that fails is logged and the next one tries again.
 */
export default fp(
  async (app) => {
    const purges = [
      ['leads', () => purgeExpiredLeads(app.db, app.config.leadRetentionDays), app.config.leadRetentionDays],
      ['events', () => purgeExpiredEvents(app.db, app.config.eventRetentionDays), app.config.eventRetentionDays],
      ['console sessions', () => purgeConsoleSessions(app.db), 0],
      ['platform webhooks', () => purgeWebhooks(app.db), WEBHOOK_KEEP_DAYS],
    ] as const;
    app.jobs.define('retention.purge', {
      async run() {
        for (const [what, run, retentionDays] of purges) {
          try {
            const purged = await run();
            if (purged) app.log.info({ purged, retentionDays }, `expired ${what} purged`);
          } catch (err) {
            app.log.warn({ err }, `${what} retention purge failed; next try later`);
          }
        }
      },
      everyMinutes: PURGE_EVERY_MINUTES,
      expireMinutes: 60,
    });
    // at start too (a purge already waiting is not sent again); the start does not wait for it
    app.addHook('onReady', async () => {
      void app.jobs.send('retention.purge', {}, 'start').catch((err) => {
        app.log.warn({ err }, 'retention purge could not be sent; the next scheduled one runs');
      });
    });
  },
  { name: 'retention', dependencies: ['database', 'jobs'] },
);
