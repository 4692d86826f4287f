import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { adminDisabled, createAdminTokenCheck } from '../../auth/admin-token.ts';
import { AUTHENTICATED_JSON_LIMITS } from '../../http/json-body.ts';
import activity from './activity.ts';
import consoleUsers from './console-users.ts';
import feeds from './feeds.ts';
import keys from './keys.ts';
import learning from './learning.ts';
import merchants from './merchants.ts';
import perfumes from './perfumes.ts';
import products from './products.ts';

/**
 * An admin read is answered 503 after this many DB_TIMEOUT_MS (30 s by default), a change after
 * ADMIN_WRITE_TIMEOUT_FACTOR (270 s: a 50,000-product sync, inside nginx's 300 s for /api/admin/).
 */
export const ADMIN_READ_TIMEOUT_FACTOR = 10;
export const ADMIN_WRITE_TIMEOUT_FACTOR = 90;

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
  // the token is checked before any body is read: a body here is the operator's (a sync of 50,000
  // products), held to its route's byte limit and the nesting limit only (http/json-body.ts), and
  // drawing on no budget of strangers' large bodies (http/large-bodies.ts)
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, jsonLimits: AUTHENTICATED_JSON_LIMITS, provenBeforeBody: true };
  });
  app.addHook('onRequest', async (request) => check(request.headers.authorization, request.ip));
  // No operator waits for ever on a database that does not answer: the request is answered 503
  // after a multiple of DB_TIMEOUT_MS. A read is then simply not done; a change may still be
  // applied when the database answers, and the answer says so.
  const timers = new WeakMap<object, NodeJS.Timeout>();
  app.addHook('preHandler', async (request, reply) => {
    const read = request.method === 'GET' || request.method === 'HEAD';
    const deadlineMs = (read ? ADMIN_READ_TIMEOUT_FACTOR : ADMIN_WRITE_TIMEOUT_FACTOR) * app.config.dbTimeoutMs;
    const timer = setTimeout(() => {
      if (reply.sent) return;
      request.log.warn({ ms: deadlineMs }, 'admin request given up: the database did not answer');
      reply
        .status(503)
        .header('retry-after', '5')
        .send(
          read
            ? { error: 'The database did not answer in time, retry shortly', code: 'database_unavailable' }
            : {
                error:
                  'The database did not answer in time; the change may still be applied when it does. Read it back before sending it again',
                code: 'write_outcome_unknown',
              },
        );
    }, deadlineMs);
    timers.set(request, timer);
  });
  app.addHook('onResponse', async (request) => clearTimeout(timers.get(request)));
  app.addHook('onRequestAbort', async (request) => clearTimeout(timers.get(request)));
  // the whole OpenAPI document, the admin API included (/docs publishes the widget's part only)
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(merchants);
  await app.register(keys);
  await app.register(products);
  await app.register(learning);
  await app.register(perfumes);
  await app.register(activity);
  await app.register(consoleUsers);
  await app.register(feeds);
};

export default admin;
