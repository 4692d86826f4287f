import fp from 'fastify-plugin';
import { createLeadCipher, type LeadCipher } from '../../privacy/lead-crypto.ts';
import { resolveLeadKey } from '../../privacy/lead-key.ts';
import { purgeExpiredLeads } from '../../services/leads.ts';

declare module 'fastify' {
  interface FastifyInstance {
    leadCipher: LeadCipher;
  }
}

const PURGE_EVERY_MS = 6 * 3600 * 1000;

export default fp(
  async (app) => {
    app.decorate('leadCipher', createLeadCipher(resolveLeadKey(app.config, true) as Buffer));
    const purge = async () => {
      try {
        const n = await purgeExpiredLeads(app.db, app.config.leadRetentionDays);
        if (n) app.log.info({ purged: n, retentionDays: app.config.leadRetentionDays }, 'expired leads purged');
      } catch (err) {
        app.log.warn({ err }, 'lead retention purge failed; next try later');
      }
    };
    app.addHook('onReady', async () => {
      void purge();
    });
    const timer = setInterval(() => void purge(), PURGE_EVERY_MS);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  },
  { name: 'leads', dependencies: ['database'] },
);
