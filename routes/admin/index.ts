import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { adminDisabled, createAdminTokenCheck } from '../../auth/admin-token.ts';
import activity from './activity.ts';
import keys from './keys.ts';
import merchants from './merchants.ts';
import products from './products.ts';

/**
 * The operator API. Off unless ADMIN_TOKEN is set; then every request needs
 * `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time.
 */
const admin: FastifyPluginAsyncTypebox = async (app) => {
  const token = app.config.adminToken;
  if (!token) {
    app.all('/*', { schema: { hide: true } }, async () => {
      throw adminDisabled();
    });
    return;
  }
  const check = createAdminTokenCheck(token);
  app.addHook('onRequest', async (request) => check(request.headers.authorization, request.ip));
  // the whole OpenAPI document, the admin API included (/docs publishes the widget's part only)
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(merchants);
  await app.register(keys);
  await app.register(products);
  await app.register(activity);
};

export default admin;
