import type { Registry } from 'prom-client';

/**
 * A labelled counter and histogram for per-request metrics, registered in a
 * prom-client registry and formatted by it at scrape time, with the same
 * exposition as prom-client's own Counter and Histogram.
 *
 * Why not prom-client's: its labelled `inc()` and `observe()` check and hash
 * the label set on every call, even through a `labels()` child. Here a series
 * is looked up once (by the caller) and each update is an array write: on the
 * score route that was ~5 µs of a ~70 µs request (docs/benchmarks.md).
 */

type Values<L extends string> = Record<L, string>;

interface Sample {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName?: string;
}

interface Exported {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: Sample[];
  aggregator: 'sum';
}

abstract class SeriesMetric<L extends string, S> {
  protected readonly series = new Map<string, { labels: Values<L>; data: S }>();
  readonly aggregator = 'sum' as const;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  protected abstract fresh(): S;

  /** the series of these label values, created at zero the first time */
  protected seriesOf(values: Values<L>): S {
    const key = this.labelNames.map((l) => values[l]).join('\u0000');
    let s = this.series.get(key);
    if (!s) {
      s = { labels: { ...values }, data: this.fresh() };
      this.series.set(key, s);
    }
    return s.data;
  }

  protected abstract samples(): Sample[];

  /** what prom-client's registry formats (the text exposition) */
  getForPromString(): Exported {
    return { name: this.name, help: this.help, type: this.type, values: this.samples(), aggregator: this.aggregator };
  }

  /** the JSON form (registry.getMetricsAsJSON): shared labels merged into each sample's labels */
  get(): Exported {
    const data = this.getForPromString();
    data.values = data.values.map(({ labels, sharedLabels, ...rest }) => ({
      ...rest,
      labels: { ...sharedLabels, ...labels },
    }));
    return data;
  }

  reset(): void {
    this.series.clear();
  }

  abstract readonly type: 'counter' | 'histogram';
}

export class SeriesCounter<L extends string> extends SeriesMetric<L, { value: number }> {
  readonly type = 'counter' as const;

  protected fresh() {
    return { value: 0 };
  }

  /** a handle on one series: keep it, and `inc()` costs an addition */
  labels(values: Values<L>): { inc(by?: number): void } {
    const data = this.seriesOf(values);
    return {
      inc(by = 1) {
        data.value += by;
      },
    };
  }

  protected samples(): Sample[] {
    return [...this.series.values()].map(({ labels, data }) => ({ labels, value: data.value }));
  }
}

export class SeriesHistogram<L extends string> extends SeriesMetric<
  L,
  { counts: Float64Array; sum: number; count: number }
> {
  readonly type = 'histogram' as const;
  private readonly bounds: readonly number[];

  constructor(name: string, help: string, labelNames: readonly L[], buckets: readonly number[], registry: Registry) {
    super(name, help, labelNames, registry);
    this.bounds = [...buckets].sort((a, b) => a - b);
  }

  protected fresh() {
    return { counts: new Float64Array(this.bounds.length), sum: 0, count: 0 };
  }

  /** a handle on one series: keep it, and `observe()` finds a bucket and adds */
  labels(values: Values<L>): { observe(v: number): void } {
    const data = this.seriesOf(values);
    const bounds = this.bounds;
    return {
      observe(v) {
        if (!Number.isFinite(v)) return;
        for (let i = 0; i < bounds.length; i++) {
          if (v <= (bounds[i] as number)) {
            data.counts[i] = (data.counts[i] as number) + 1;
            break;
          }
        }
        data.sum += v;
        data.count += 1;
      },
    };
  }

  protected samples(): Sample[] {
    const out: Sample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, data } of this.series.values()) {
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += data.counts[i] as number;
        out.push({ labels: { le }, sharedLabels: labels, value: acc, metricName: bucket });
      });
      out.push(
        { labels: { le: '+Inf' }, sharedLabels: labels, value: data.count, metricName: bucket },
        { labels: {}, sharedLabels: labels, value: data.sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: labels, value: data.count, metricName: `${this.name}_count` },
      );
    }
    return out;
  }
}
