import fp from 'fastify-plugin';
import { Redis } from 'ioredis';

declare module 'fastify' {
  interface FastifyInstance {
    /** shared Redis client (rate-limit counters, key invalidations); null when REDIS_URL is unset */
    redis: Redis | null;
  }
}

/** Far above a healthy Redis's answer time (well under a millisecond), short enough for a shopper. */
export const REDIS_COMMAND_TIMEOUT_MS = 500;

export default fp(
  async (app) => {
    const url = app.config.redisUrl;
    if (!url) {
      app.decorate('redis', null);
      return;
    }
    const redis = new Redis(url, {
      // Fail a command at once while Redis is down instead of queueing it:
      // the rate limiter then falls back to this instance's own counters.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      // A connection that stays open while nothing comes back (a network partition, a
      // paused server) is not "down" to the client: without a deadline each command,
      // and the request counting with it, would wait until TCP gives up, minutes later.
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      lazyConnect: true,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    let lastWarn = 0;
    redis.on('error', (err) => {
      // a reconnecting client errors many times a second; one line every 10 s is enough
      if (Date.now() - lastWarn > 10_000) {
        lastWarn = Date.now();
        app.log.warn({ err: { message: err.message } }, 'redis unavailable');
      }
    });
    try {
      await redis.connect();
    } catch (err) {
      app.log.warn({ err }, 'redis unreachable at start-up; rate limits count per instance until it returns');
    }
    app.decorate('redis', redis);
    app.addHook('onClose', async () => {
      redis.disconnect();
    });
  },
  { name: 'redis' },
);
