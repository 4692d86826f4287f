/**
 * The one cache facility: every in-memory cache of the service is a `Cache`,
 * bounded by entry count (least recently used out first), optionally by age,
 * and registered by name with what invalidates it, so the list of caches in
 * docs/architecture.md and the `sillage_cache_entries` metric come from one
 * place. Pure: no Fastify, no database.
 */
import { LRUCache } from 'lru-cache';

export interface CacheSpec {
  /** unique, kebab-case: the metric label and the name in docs/architecture.md */
  name: string;
  /** entries kept; the least recently used goes first */
  max: number;
  /** an entry older than this is a miss (and is dropped) */
  ttlMs?: number;
  /** what drops or outdates an entry, in a sentence (listed by `cacheInventory`) */
  invalidatedBy: string;
}

/** null is a value worth caching ("no such key"); lru-cache itself refuses it */
const NULL = Symbol('null');
type Stored<V> = Exclude<V, null> | typeof NULL;

export class Cache<K extends string | object, V> {
  private readonly lru: LRUCache<K, Stored<V> & {}>;

  constructor(
    readonly spec: CacheSpec,
    opts: { now?: () => number } = {},
  ) {
    if (!Number.isSafeInteger(spec.max) || spec.max < 1) throw new Error(`cache ${spec.name}: max must be ≥ 1`);
    // lru-cache reads an entry stamped at 0 as having no lifetime: an injected clock is moved off 0
    const now = opts.now;
    // bounded as a count through lru-cache's size limit (each entry of size 1) rather than its `max`:
    // `max` allocates and fills its lists for every entry at once (about 2 MB for 100,000 whatever the
    // cache holds, 35 MB over the service's caches at start), where these grow with what is cached
    this.lru = new LRUCache<K, Stored<V> & {}>({
      maxSize: spec.max,
      sizeCalculation: () => 1,
      ...(spec.ttlMs ? { ttl: spec.ttlMs, ...(now ? { perf: { now: () => now() + 1 }, ttlResolution: 0 } : {}) } : {}),
    });
    register(this);
  }

  get(key: K): V | undefined {
    const v = this.lru.get(key);
    return v === NULL ? (null as V) : (v as V | undefined);
  }

  set(key: K, value: V): this {
    this.lru.set(key, (value === null ? NULL : value) as Stored<V> & {});
    return this;
  }

  has(key: K): boolean {
    return this.lru.has(key);
  }

  delete(key: K): boolean {
    return this.lru.delete(key);
  }

  clear(): void {
    this.lru.clear();
  }

  /** Drops every entry the predicate picks (e.g. all of one merchant's). */
  deleteWhere(pick: (key: K, value: V) => boolean): number {
    let dropped = 0;
    for (const [k, v] of this.lru.entries()) {
      if (pick(k, (v === NULL ? null : v) as V)) {
        this.lru.delete(k);
        dropped++;
      }
    }
    return dropped;
  }

  keys(): K[] {
    return [...this.lru.keys()];
  }

  get size(): number {
    return this.lru.size;
  }
}

/**
 * The value for `key`, computed by `make` on a miss and kept. One call for the
 * common "remember this" pattern.
 */
export function remembered<K extends string | object, V>(cache: Cache<K, V>, key: K, make: () => V): V {
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const value = make();
  cache.set(key, value);
  return value;
}

// Caches are weakly referenced: a cache created per app instance (tests build many)
// leaves the inventory when its instance is collected.
interface Registered {
  readonly spec: CacheSpec;
  readonly size: number;
}
const registry = new Map<string, WeakRef<Registered>[]>();

function register(cache: Registered): void {
  let list = registry.get(cache.spec.name);
  if (!list) {
    list = [];
    registry.set(cache.spec.name, list);
  }
  list.push(new WeakRef(cache));
  // collected caches are swept now and then, not at every registration
  if ((list.length & 63) === 0) {
    const live = list.filter((r) => r.deref() !== undefined);
    list.length = 0;
    list.push(...live);
  }
}

export interface CacheReport {
  name: string;
  max: number;
  ttlMs: number | null;
  invalidatedBy: string;
  /** live instances of this cache (one per app instance for per-app caches) */
  instances: number;
  entries: number;
}

/** Every cache created in this process, by name, with its current size. */
export function cacheInventory(): CacheReport[] {
  const out: CacheReport[] = [];
  for (const [name, refs] of registry) {
    const live = refs.map((r) => r.deref()).filter((c): c is Registered => c !== undefined);
    if (live.length === 0) continue;
    const spec = (live[0] as Registered).spec;
    out.push({
      name,
      max: spec.max,
      ttlMs: spec.ttlMs ?? null,
      invalidatedBy: spec.invalidatedBy,
      instances: live.length,
      entries: live.reduce((n, c) => n + c.size, 0),
    });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}
