/**
 * Request bodies in JSON, read with limits checked before parsing, in one
 * pass over the text.
 *
 * Nesting: JSON.parse accepts any depth, but what reads the value afterwards
 * — validation, JSON.stringify, a database driver — recurses, and a body of
 * 1 MB of `[` or an event whose data is nested 6,000 deep ended as a 500. No
 * body of ours nests deeper than a few levels; MAX_JSON_DEPTH leaves room.
 *
 * Values, keys, layouts, short strings: a widget operation's key is in its
 * body, so the body is parsed, walked by the text guard and validated before
 * anyone is known. What that costs the main thread is set less by the bytes
 * than by what they make: a value costs JSON.parse tens of nanoseconds, but a
 * key that gives an object a layout V8 has not seen about 1 µs, and a new
 * string of at most 10 characters (V8 interns those) about 0.4 µs. A megabyte
 * of `{"k1":0}`, each key new, cost JSON.parse and the guard about 100 ms.
 * UNAUTHENTICATED_JSON_LIMITS bounds each on every route that reads its body
 * before knowing who sent it, so that the largest such body costs at most
 * 20 ms; a route whose caller is proven before its body is read (the admin
 * API) says so in its route config (`jsonLimits`). The figures: docs/security.md
 * (finding 1 of issue 44) and `npm run bench -- attack-bodies`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.ts';

export const MAX_JSON_DEPTH = 32;

export interface JsonLimits {
  /** arrays and objects opened inside each other */
  depth: number;
  /** values: objects, arrays, strings, numbers, true, false, null (a key is not a value) */
  values: number;
  /** keys in the whole body */
  keys: number;
  /** keys in one object */
  keysPerObject: number;
  /**
   * object layouts: the different runs of keys objects start with (V8 gives each a hidden class of
   * its own, built the first time: `{"a":…,"b":…}` makes two, `{a}` and `{a, b}`, shared by every
   * object whose keys begin so)
   */
  layouts: number;
  /** different strings of at most 10 characters (V8 interns each one JSON.parse makes) */
  shortStrings: number;
}

/**
 * The most a body may hold where its sender is not known yet. The largest honest body is a score
 * with an inline catalog of 200 products, each with every field at its limit (30 accords, 30 notes
 * of each tier, 20 sizes) and 90 accord ratings: 51,531 values and 23,305 keys; no honest object
 * has more than 90 keys (those ratings). Its objects share a few layouts: 126, and about 400 when
 * each row holds its own choice of the optional fields. Its short strings repeat (ids, currencies,
 * size labels, accords, notes): 375. tests/security/unauthenticated-bodies.test.ts sends one.
 */
export const UNAUTHENTICATED_JSON_LIMITS: JsonLimits = {
  depth: MAX_JSON_DEPTH,
  values: 60_000,
  keys: 25_000,
  keysPerObject: 1_000,
  layouts: 2_000,
  shortStrings: 3_000,
};

/** Where the caller is proven before the body is read (an admin token in onRequest): nesting only. */
export const AUTHENTICATED_JSON_LIMITS: JsonLimits = {
  depth: MAX_JSON_DEPTH,
  values: Number.POSITIVE_INFINITY,
  keys: Number.POSITIVE_INFINITY,
  keysPerObject: Number.POSITIVE_INFINITY,
  layouts: Number.POSITIVE_INFINITY,
  shortStrings: Number.POSITIVE_INFINITY,
};

declare module 'fastify' {
  interface FastifyContextConfig {
    /** the limits of this route's JSON body (UNAUTHENTICATED_JSON_LIMITS when not given) */
    jsonLimits?: JsonLimits;
  }
}

/** What the pre-parse pass has looked at, for the tests that bound its work. */
export const jsonBodyWork = { chars: 0, values: 0, keys: 0, layouts: 0, shortStrings: 0 };

export type JsonLimitExceeded = keyof JsonLimits;

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_ARRAY = 91;
const OPEN_OBJECT = 123;
const CLOSE_ARRAY = 93;
const CLOSE_OBJECT = 125;
/** V8 interns a string value of at most this many characters (JsonParser's kMaxInternalizedStringValueLength) */
const SHORT_STRING = 10;

/** Whether text[start, end) holds a backslash. */
function escapes(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (text.charCodeAt(i) === BACKSLASH) return true;
  return false;
}

/**
 * The first limit a JSON text goes past, or null; stops there. One pass: a string is skipped (its
 * end found by indexOf, escaped quotes stepped over), and is a key when it opens an object's
 * member; a number, `true`, `false` or `null` is counted at its first character. Layouts are
 * counted as V8 builds them: an object starts empty, and each key leads from the layout so far to
 * the next, new or seen before in this body. Text that is not JSON is left to JSON.parse, which
 * stops at its first error: counts of such text only ever refuse it sooner.
 */
export function jsonLimitExceeded(text: string, limits: JsonLimits): JsonLimitExceeded | null {
  const n = text.length;
  const slots = Math.min(limits.depth, 1024) + 2;
  // for the container open at each depth: whether it is an object, its keys so far, its layout so far
  const isObject = new Uint8Array(slots);
  const keysAt = new Int32Array(slots);
  const layoutAt = new Int32Array(slots);
  // the layouts reached from each layout by each key; layout 0 is the empty object
  const next: (Map<string, number> | undefined)[] = [];
  // the key each layout was last left by, and where it led: compared before any lookup
  const expectedName: (string | undefined)[] = [];
  const expectedTo: number[] = [];
  const short = new Set<string>();
  const countLayouts = limits.layouts < Number.POSITIVE_INFINITY;
  const countShort = limits.shortStrings < Number.POSITIVE_INFINITY;
  let depth = 0;
  let values = 0;
  let keys = 0;
  let layouts = 0;
  // the last character outside strings and whitespace: a scalar starts after `[`, `,`, `:` or nothing
  let prev = 0;
  let i = 0;
  let over: JsonLimitExceeded | null = null;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const key = prev === OPEN_OBJECT || (prev === COMMA && isObject[depth] === 1);
      const start = i + 1;
      let end = text.indexOf('"', start);
      for (;;) {
        if (end < 0) {
          end = n;
          break;
        }
        // a quote after an odd run of backslashes is escaped
        let b = end - 1;
        while (b >= start && text.charCodeAt(b) === BACKSLASH) b--;
        if ((end - 1 - b) % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      i = end;
      if (key) {
        if (++keys > limits.keys) {
          over = 'keys';
          break;
        }
        const inObject = (keysAt[depth] as number) + 1;
        keysAt[depth] = inObject;
        if (inObject > limits.keysPerObject) {
          over = 'keysPerObject';
          break;
        }
        if (countLayouts) {
          const from = layoutAt[depth] as number;
          // most objects repeat the layout of the one before: its key is compared where it stands
          const expected = expectedName[from];
          let layout: number | undefined;
          if (expected !== undefined && expected.length === end - start && text.startsWith(expected, start)) {
            layout = expectedTo[from] as number;
          } else {
            let to = next[from];
            if (to === undefined) {
              to = new Map();
              next[from] = to;
            }
            const name = text.slice(start, end);
            layout = to.get(name);
            if (layout === undefined) {
              layout = ++layouts;
              if (layouts > limits.layouts) {
                over = 'layouts';
                break;
              }
              to.set(name, layout);
            }
            expectedName[from] = name;
            expectedTo[from] = layout;
          }
          layoutAt[depth] = layout;
        }
      } else {
        values++;
        // escapes make the text longer than the string: `\u00e9` is one character
        const length = end - start;
        if (countShort && (length <= SHORT_STRING || (length <= 6 * SHORT_STRING && escapes(text, start, end)))) {
          const before = short.size;
          short.add(text.slice(start, end));
          if (short.size > before && short.size > limits.shortStrings) {
            over = 'shortStrings';
            break;
          }
        }
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      values++;
      if (++depth > limits.depth) {
        over = 'depth';
        break;
      }
      isObject[depth] = c === OPEN_OBJECT ? 1 : 0;
      keysAt[depth] = 0;
      layoutAt[depth] = 0;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    } else if (
      c > 32 &&
      c !== COMMA &&
      c !== 58 /* : */ &&
      (prev === COMMA || prev === 58 || prev === OPEN_ARRAY || prev === 0)
    ) {
      values++;
    }
    if (c > 32) prev = c;
    if (values > limits.values) {
      over = 'values';
      break;
    }
  }
  jsonBodyWork.chars += Math.min(i + 1, n);
  jsonBodyWork.values += values;
  jsonBodyWork.keys += keys;
  jsonBodyWork.layouts += layouts;
  jsonBodyWork.shortStrings += short.size;
  return over;
}

/** Whether a JSON text opens more than `max` arrays or objects inside each other (strings skipped). */
export function nestsDeeperThan(text: string, max: number): boolean {
  return jsonLimitExceeded(text, { ...AUTHENTICATED_JSON_LIMITS, depth: max }) === 'depth';
}

/** The refusal of a text past its limits (400), or null. */
export function jsonLimitError(text: string, limits: JsonLimits): AppError | null {
  const over = jsonLimitExceeded(text, limits);
  if (over === null) return null;
  if (over === 'depth') {
    return new AppError(400, 'invalid_json', `Body nests arrays or objects deeper than ${limits.depth} levels`);
  }
  const what: Record<Exclude<JsonLimitExceeded, 'depth'>, string> = {
    values: 'values',
    keys: 'keys',
    keysPerObject: 'keys in one object',
    layouts: 'different sequences of keys in its objects',
    shortStrings: 'different strings of 10 characters or fewer',
  };
  return new AppError(
    400,
    'too_many_values',
    `The body holds more than ${limits[over].toLocaleString('en')} ${what[over]}`,
  );
}

type Done = (err: Error | null, body?: unknown) => void;

/**
 * A body this long is parsed in a turn of the event loop of its own, after the pass over it: the
 * largest cost a few milliseconds each (docs/security.md, finding 1 of issue 44), and other
 * requests are served between them rather than after all of it.
 */
export const LARGE_BODY_CHARS = 64 * 1024;

/**
 * A body parser: Fastify's own JSON parser (prototype poisoning refused, its
 * errors for empty and malformed bodies) behind the route's limits.
 */
export function depthLimitedJsonParser(app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'error');
  return (request: FastifyRequest, body: string | Buffer, done: Done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    const refused = jsonLimitError(text, request.routeOptions.config?.jsonLimits ?? UNAUTHENTICATED_JSON_LIMITS);
    if (refused) {
      done(refused);
      return;
    }
    if (text.length > LARGE_BODY_CHARS) setImmediate(() => parse(request, text, done));
    else parse(request, text, done);
  };
}
