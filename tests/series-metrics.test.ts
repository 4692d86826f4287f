import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { SeriesCounter, SeriesHistogram } from '../http/series-metrics.ts';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const operation = fc.constantFrom('score', 'event', 'verify', 'unmatched');
const status = fc.constantFrom('200', '202', '400', '429', '503');
/** request durations in seconds, bucket bounds themselves included */
const seconds = fc.oneof(fc.double({ min: 0, max: 10, noNaN: true }), fc.constantFrom(...BUCKETS));

describe('series metrics', () => {
  it("expose exactly what prom-client's Counter and Histogram expose for the same updates", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(operation, status, seconds), { maxLength: 60 }), async (updates) => {
        const theirs = new Registry();
        const ours = new Registry();
        const counter = new Counter({
          name: 'req_total',
          help: 'requests',
          labelNames: ['operation', 'status'],
          registers: [theirs],
        });
        const histogram = new Histogram({
          name: 'req_seconds',
          help: 'durations',
          labelNames: ['operation'],
          buckets: BUCKETS,
          registers: [theirs],
        });
        const seriesCounter = new SeriesCounter('req_total', 'requests', ['operation', 'status'], ours);
        const seriesHistogram = new SeriesHistogram('req_seconds', 'durations', ['operation'], BUCKETS, ours);
        for (const [op, st, s] of updates) {
          counter.labels(op, st).inc();
          histogram.labels(op).observe(s);
          seriesCounter.labels({ operation: op, status: st }).inc();
          seriesHistogram.labels({ operation: op }).observe(s);
        }
        expect(await ours.metrics()).toBe(await theirs.metrics());
        // (prom-client adds an empty exemplar field to each sample; exemplars are not used here)
        const json = async (r: Registry) =>
          JSON.parse(JSON.stringify(await r.getMetricsAsJSON(), (k, v) => (k === 'exemplar' ? undefined : v)));
        expect(await json(ours)).toEqual(await json(theirs));
      }),
      { numRuns: 200 },
    );
  });

  it('count through a kept handle, and start again at zero on reset', async () => {
    const registry = new Registry();
    const c = new SeriesCounter('c_total', 'c', ['operation'], registry);
    const score = c.labels({ operation: 'score' });
    score.inc();
    score.inc(2);
    expect(await registry.metrics()).toContain('c_total{operation="score"} 3');
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('operation="score"');
  });
});
