import fp from 'fastify-plugin';
import { createLeadCipher, type LeadCipher } from '../../privacy/lead-crypto.ts';
import { resolveLeadKey } from '../../privacy/lead-key.ts';

declare module 'fastify' {
  interface FastifyInstance {
    leadCipher: LeadCipher;
  }
}

/** The cipher leads are stored with (their retention purge: plugins/app/retention.ts). */
export default fp(
  async (app) => {
    app.decorate('leadCipher', createLeadCipher(resolveLeadKey(app.config, true) as Buffer));
  },
  { name: 'leads', dependencies: ['database'] },
);
