import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../lib/errors.ts';
import activity from './activity.ts';
import keys from './keys.ts';
import merchants from './merchants.ts';
import products from './products.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * The operator API. Off unless ADMIN_TOKEN is set; then every request needs
 * `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time.
 */
const admin: FastifyPluginAsyncTypebox = async (app) => {
  const token = app.config.adminToken;
  if (!token) {
    app.all('/*', { schema: { hide: true } }, async () => {
      throw new AppError(404, 'admin_disabled', 'The admin API is disabled: set ADMIN_TOKEN to enable it');
    });
    return;
  }
  const expected = digest(token);
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    const m = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    // comparing fixed-length digests keeps the comparison constant-time whatever the input length
    if (!m?.[1] || !timingSafeEqual(digest(m[1]), expected)) {
      throw new AppError(401, 'invalid_admin_token', 'Admin API: send Authorization: Bearer <ADMIN_TOKEN>');
    }
  });
  await app.register(merchants);
  await app.register(keys);
  await app.register(products);
  await app.register(activity);
};

export default admin;
