import fp from 'fastify-plugin';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { adminDisabled, createAdminTokenCheck } from '../../auth/admin-token.ts';
import { SeriesCounter, SeriesHistogram } from '../../http/series-metrics.ts';
import { cacheInventory } from '../../lib/cache.ts';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: ReturnType<typeof createMetrics>;
  }
}

/** Which operation a route is, as an operator reads a dashboard: bounded label values only. */
export function operationOf(routeUrl: string | undefined): string {
  if (!routeUrl) return 'unmatched';
  const widget = /^\/api\/widget\/(score|event|verify|lookup)$/.exec(routeUrl);
  if (widget?.[1]) return widget[1];
  if (routeUrl.startsWith('/api/admin')) return 'admin';
  if (routeUrl.startsWith('/widget/v1/')) return 'widget_file';
  if (routeUrl.startsWith('/demo')) return 'demo';
  if (routeUrl === '/healthz' || routeUrl === '/readyz') return 'health';
  if (routeUrl === '/metrics') return 'metrics';
  if (routeUrl.startsWith('/docs')) return 'docs';
  return 'other';
}

/**
 * One registry per app (tests build many apps in one process; prom-client's
 * global registry would refuse the second). Process and Node metrics come
 * from prom-client's defaults.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    // updated on every request: series looked up once, each update an array write (http/series-metrics.ts)
    requests: new SeriesCounter(
      'sillage_requests_total',
      'Requests answered, by operation and status code',
      ['operation', 'status'],
      registry,
    ),
    duration: new SeriesHistogram(
      'sillage_request_duration_seconds',
      'Time from receiving a request to sending its answer, by operation',
      ['operation'],
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registry,
    ),
    rateLimited: new SeriesCounter(
      'sillage_rate_limited_total',
      'Requests refused with 429 by the per-key, per-address limits, by operation',
      ['operation'],
      registry,
    ),
    eventsIngested: new Counter({
      name: 'sillage_events_ingested_total',
      help: 'Widget events committed to the database (duplicates not counted)',
      registers: [registry],
    }),
    // read at scrape time: the caches are counted when asked, not on every request
    cacheEntries: new Gauge({
      name: 'sillage_cache_entries',
      help: 'Entries held by each in-memory cache (lib/cache.ts), summed over its live instances',
      labelNames: ['cache'],
      registers: [registry],
      collect() {
        this.reset(); // a cache whose instances are gone leaves the scrape
        for (const c of cacheInventory()) this.set({ cache: c.name }, c.entries);
      },
    }),
  };
}

/**
 * Prometheus metrics at GET /metrics, for the operator: behind ADMIN_TOKEN like
 * the admin API (request counts per merchant-facing operation are business
 * data), and off with it.
 */
export default fp(
  async (app) => {
    const metrics = createMetrics();
    app.decorate('metrics', metrics);

    // labelled series looked up once per route and status, not hashed per request
    const series = new Map<
      string,
      { requests: { inc(): void }; duration: { observe(v: number): void }; rateLimited: { inc(): void } }
    >();
    app.addHook('onResponse', (request, reply, done) => {
      const status = reply.statusCode;
      const url = request.routeOptions.url;
      const memo = `${status} ${url}`;
      let s = series.get(memo);
      if (!s) {
        const operation = operationOf(url);
        s = {
          requests: metrics.requests.labels({ operation, status: String(status) }),
          duration: metrics.duration.labels({ operation }),
          rateLimited: metrics.rateLimited.labels({ operation }),
        };
        // route patterns and statuses are bounded; unmatched URLs share the undefined pattern
        if (series.size < 10_000) series.set(memo, s);
      }
      s.requests.inc();
      s.duration.observe(reply.elapsedTime / 1000);
      if (status === 429) s.rateLimited.inc();
      done();
    });

    const token = app.config.adminToken;
    const check = token ? createAdminTokenCheck(token) : null;
    app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
      if (!check) throw adminDisabled();
      check(request.headers.authorization, request.ip);
      reply.header('content-type', metrics.registry.contentType).header('cache-control', 'no-store');
      return metrics.registry.metrics();
    });
  },
  { name: 'metrics' },
);
