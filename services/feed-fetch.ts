import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { TextDecoder } from 'node:util';
import zlib from 'node:zlib';
import { guardedLookup, hostOf, isPrivateAddress } from './outbound.ts';

/**
 * One page of a shop's product feed, pulled from the URL the merchant gave
 * (feeds/types.ts reads it). What the merchant names is the internet's, never
 * the operator's network: https only; every address the host resolves to
 * must be public (services/outbound.ts), and the connection goes to the
 * address checked; redirects are followed here, at most three, each new
 * address checked again. A page has a time limit (headers and body) and a
 * size limit on its decompressed bytes, within what is left of the feed's own.
 * Hosts the operator lists (FEED_ALLOW_PRIVATE_HOSTS) may be private and
 * plain http. Every failure is a FeedFetchError whose message the merchant can
 * act on; request headers (an access token) and URL queries never appear in it.
 */

export const FEED_USER_AGENT = 'Sillage-Feed/1';
/** a page's headers and body arrive within this, redirects included */
export const FEED_PAGE_TIMEOUT_MS = 30_000;
/** a page's body, decompressed, is at most this */
export const FEED_PAGE_MAX_BYTES = 20 * 1024 * 1024;
export const FEED_MAX_REDIRECTS = 3;
const MAX_FEED_URL = 4000;

export interface FeedFetchOptions {
  /** the previous pull's validators: the server may answer 304 */
  etag?: string | null;
  lastModified?: string | null;
  /** extra request headers (an access token); dropped when a redirect leaves the first URL's origin */
  headers?: Readonly<Record<string, string>>;
  /** FEED_PAGE_TIMEOUT_MS by default */
  timeoutMs?: number;
  /** FEED_PAGE_MAX_BYTES by default */
  maxBytes?: number;
  /** bytes the feed as a whole may still read (its pages together); the page's cap when smaller */
  budgetBytes?: number;
  /** the operator's private hosts (config.feeds.allowPrivateHosts): URL hosts, lower case */
  allowPrivateHosts?: readonly string[];
  /** a request body: the page is asked for with POST (a GraphQL API's query), never redirected */
  body?: string;
}

export interface FeedPageFetched {
  status: 200;
  /** decoded: the Content-Type's charset, a byte-order mark or an XML declaration's encoding; else UTF-8 */
  body: string;
  etag: string | null;
  lastModified: string | null;
  contentType: string | null;
  /** the Link header (RFC 8288): where a paged API names its next page */
  link: string | null;
  /** WooCommerce's X-WP-TotalPages: how many pages its Store API has */
  totalPages: string | null;
  /** the URL the page came from, after redirects (relative links and the next page are read against it) */
  finalUrl: string;
  /** the body's bytes, decompressed: what the page took of the feed's budget */
  bytes: number;
}

export interface FeedNotModified {
  status: 304;
  finalUrl: string;
}

export type FeedFetchErrorCode =
  | 'feed_bad_url'
  | 'feed_private_address'
  | 'feed_timeout'
  | 'feed_too_large'
  | 'feed_http_error'
  | 'feed_too_many_redirects'
  | 'feed_unreachable'
  | 'feed_unreadable';

export interface FeedFetchError {
  status: 'error';
  code: FeedFetchErrorCode;
  /** for the merchant: what went wrong and what to do */
  message: string;
  /** the URL that failed as scheme, host and path (no query: it may hold a key); null when not a URL */
  url: string | null;
  /** the server's status, for feed_http_error */
  httpStatus: number | null;
  /** body bytes read (decompressed) before the failure */
  bytes: number;
}

export type FeedFetchResult = FeedPageFetched | FeedNotModified | FeedFetchError;

/** headers a caller's extras may not set: the fetcher's own, or the connection's */
const OWN_HEADERS = new Set([
  'user-agent',
  'accept-encoding',
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'if-none-match',
  'if-modified-since',
]);

const shown = (url: URL) => `${url.protocol}//${url.host}${url.pathname}`;
const mb = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

function failure(
  code: FeedFetchErrorCode,
  message: string,
  url: URL | null,
  extra: { httpStatus?: number; bytes?: number } = {},
): FeedFetchError {
  return {
    status: 'error',
    code,
    message,
    url: url ? shown(url) : null,
    httpStatus: extra.httpStatus ?? null,
    bytes: extra.bytes ?? 0,
  };
}

/**
 * Pulls one page. Resolves, never rejects: a page, a 304, or an error with a
 * code (feed_bad_url, feed_private_address, feed_timeout, feed_too_large,
 * feed_http_error, feed_too_many_redirects, feed_unreachable, feed_unreadable).
 */
export async function fetchFeedPage(url: string, opts: FeedFetchOptions = {}): Promise<FeedFetchResult> {
  const timeoutMs = opts.timeoutMs ?? FEED_PAGE_TIMEOUT_MS;
  const pageCap = opts.maxBytes ?? FEED_PAGE_MAX_BYTES;
  const budget = opts.budgetBytes ?? Number.POSITIVE_INFINITY;
  const cap = Math.max(0, Math.min(pageCap, budget));
  const allowed = new Set(opts.allowPrivateHosts ?? []);
  const deadline = Date.now() + timeoutMs;

  const extras: Record<string, string> = {};
  for (const [name, value] of Object.entries(opts.headers ?? {})) {
    if (!OWN_HEADERS.has(name.toLowerCase())) extras[name.toLowerCase()] = value;
  }
  const own: Record<string, string> = {
    accept: extras.accept ?? '*/*',
    'accept-encoding': 'gzip, deflate, br',
    'user-agent': FEED_USER_AGENT,
  };
  if (opts.etag) own['if-none-match'] = opts.etag;
  if (opts.lastModified) own['if-modified-since'] = opts.lastModified;

  let target: URL;
  try {
    target = new URL(url.trim());
  } catch {
    return failure('feed_bad_url', 'The feed address is not a URL: copy it whole, starting with https://', null);
  }
  const origin = target.origin;
  let sendExtras = true;
  for (let redirects = 0; ; redirects++) {
    const problem = checkFeedUrl(target, allowed, redirects > 0);
    if (problem) return problem;
    const left = deadline - Date.now();
    if (left <= 0) return timedOut(target, timeoutMs, 0);
    if (target.origin !== origin) sendExtras = false;
    const answer = await exchange(target, sendExtras ? { ...extras, ...own } : own, {
      leftMs: left,
      timeoutMs,
      cap,
      byBudget: budget < pageCap,
      allowPrivate: allowed.has(target.hostname),
      body: opts.body,
    });
    if (!('redirect' in answer)) return answer;
    let next: URL;
    try {
      next = new URL(answer.redirect, target);
    } catch {
      return failure(
        'feed_http_error',
        `The shop's server redirects the feed to an address that is not a URL: ask the shop for the feed's own address`,
        target,
        { httpStatus: answer.httpStatus },
      );
    }
    if (redirects >= FEED_MAX_REDIRECTS) {
      return failure(
        'feed_too_many_redirects',
        `The feed address redirects more than ${FEED_MAX_REDIRECTS} times (next to ${shown(next)}): give the address it ends at`,
        target,
        { httpStatus: answer.httpStatus },
      );
    }
    target = next;
  }
}

/** Scheme, credentials, length and a literal address, before any connection. */
function checkFeedUrl(url: URL, allowed: ReadonlySet<string>, redirected: boolean): FeedFetchError | null {
  const what = redirected ? `The feed redirects to ${shown(url)}, an address that` : 'The feed address';
  const trusted = allowed.has(url.hostname);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return failure('feed_bad_url', `${what} must start with https://`, url);
  }
  const host = hostOf(url);
  if (!trusted && isIP(host) && isPrivateAddress(host)) {
    return failure(
      'feed_private_address',
      `${what} names ${host}, a loopback, private or reserved address: feeds are pulled only from addresses on the internet`,
      url,
    );
  }
  if (url.protocol === 'http:' && !trusted) {
    return failure(
      'feed_bad_url',
      `${what} must start with https:// (plain http:// is refused: the feed could be altered on its way)`,
      url,
    );
  }
  if (url.username || url.password) {
    return failure(
      'feed_bad_url',
      `${what} must hold no user name or password: give an access token in the feed's settings instead`,
      url,
    );
  }
  if (url.href.length > MAX_FEED_URL) {
    return failure('feed_bad_url', `${what} is longer than ${MAX_FEED_URL} characters`, url);
  }
  return null;
}

const timedOut = (url: URL, timeoutMs: number, bytes: number) =>
  failure(
    'feed_timeout',
    `The shop's server did not send the feed page within ${timeoutMs / 1000} s (${bytes} bytes came): try again later, or ask the shop's host why the feed is slow`,
    url,
    { bytes },
  );

function tooLarge(url: URL, cap: number, byBudget: boolean, bytes: number): FeedFetchError {
  const message = byBudget
    ? `The feed is larger than one feed may be: this page passed the ${mb(cap)} the feed had left. Publish fewer or smaller pages (only the products the widget should know)`
    : `The feed page is larger than ${mb(cap)}, the limit for one page: split the feed into pages, or publish only the products the widget should know`;
  return failure('feed_too_large', message, url, { bytes });
}

function httpError(url: URL, status: number): FeedFetchError {
  const why =
    status === 401 || status === 403
      ? 'refused access: check the feed is public, or the access token in its settings'
      : status === 404 || status === 410
        ? 'has no feed at this address: check the address'
        : status === 429
          ? 'asks for fewer requests: the feed will be pulled again later'
          : status >= 500
            ? "failed: try again later, or tell the shop's host"
            : 'refused the request';
  return failure('feed_http_error', `The shop's server answered HTTP ${status}: it ${why}`, url, {
    httpStatus: status,
  });
}

function unreachable(url: URL, err: NodeJS.ErrnoException, bytes: number): FeedFetchError {
  const host = hostOf(url);
  const code = err.code ?? '';
  if (code === 'EPRIVATE') {
    return failure(
      'feed_private_address',
      `${host} resolves to a loopback, private or reserved address: feeds are pulled only from addresses on the internet`,
      url,
    );
  }
  const why =
    code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA'
      ? `the host ${host} was not found: check the feed address`
      : code === 'ECONNREFUSED'
        ? `${host} refused the connection: check the address and its port`
        : code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED'
          ? `${host} cut the connection${bytes ? ` after ${bytes} bytes` : ''}: try again later`
          : /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO|DEPTH/i.test(code)
            ? `${host}'s https certificate was not accepted (${code}): the shop's host should fix it`
            : `${host} could not be reached (${code || err.message})`;
  return failure('feed_unreachable', `The feed could not be pulled: ${why}`, url, { bytes });
}

interface Exchange {
  leftMs: number;
  timeoutMs: number;
  cap: number;
  byBudget: boolean;
  allowPrivate: boolean;
  body?: string;
}

type Decompressor = zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress;

/** zlib-wrapped (RFC 1950) deflate, as HTTP names it, or raw deflate, as some servers send it */
const isZlibHeader = (b: Buffer) =>
  b.length >= 2 && ((b[0] as number) & 0x0f) === 8 && (((b[0] as number) << 8) | (b[1] as number)) % 31 === 0;

function decompressor(encoding: string, first: Buffer): Decompressor | null | undefined {
  if (encoding === '' || encoding === 'identity') return null;
  if (encoding === 'gzip' || encoding === 'x-gzip') return zlib.createGunzip();
  if (encoding === 'deflate') return isZlibHeader(first) ? zlib.createInflate() : zlib.createInflateRaw();
  if (encoding === 'br') return zlib.createBrotliDecompress();
  return undefined;
}

/** One request: its answer, a redirect's Location, or an error. */
function exchange(
  url: URL,
  headers: Record<string, string>,
  x: Exchange,
): Promise<FeedFetchResult | { redirect: string; httpStatus: number }> {
  return new Promise((resolve) => {
    let settled = false;
    let bytes = 0;
    const chunks: Buffer[] = [];
    const open: { destroy(): void }[] = [];
    const finish = (r: FeedFetchResult | { redirect: string; httpStatus: number }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      for (const s of open) s.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => finish(timedOut(url, x.timeoutMs, bytes)), x.leftMs);

    let req: http.ClientRequest;
    try {
      req = (url.protocol === 'https:' ? https : http).request(url, {
        method: x.body === undefined ? 'GET' : 'POST',
        agent: false,
        lookup: guardedLookup(x.allowPrivate),
        headers: x.body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(x.body)) },
      });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      finish(
        e.code === 'ERR_INVALID_CHAR' || e.code === 'ERR_INVALID_HTTP_TOKEN'
          ? failure('feed_bad_url', `A request header in the feed's settings is not valid: ${e.message}`, url)
          : unreachable(url, e, 0),
      );
      return;
    }
    open.push(req);
    req.on('error', (err) => finish(unreachable(url, err, bytes)));
    req.on('response', (res) => {
      open.push(res);
      const status = res.statusCode ?? 0;
      if (status === 304) return finish({ status: 304, finalUrl: url.href });
      if (status >= 300 && status < 400) {
        const location = res.headers.location;
        // a query (POST) is not sent on to another address
        if (location && x.body === undefined) return finish({ redirect: location, httpStatus: status });
        return finish(httpError(url, status));
      }
      if (status < 200 || status >= 300) return finish(httpError(url, status));

      const encoding = (res.headers['content-encoding'] ?? '').trim().toLowerCase();
      const declared = Number(res.headers['content-length']);
      if ((encoding === '' || encoding === 'identity') && declared > x.cap) {
        return finish(tooLarge(url, x.cap, x.byBudget, 0));
      }
      const contentType = res.headers['content-type'] ?? null;
      const done = () => {
        const text = decodeBody(Buffer.concat(chunks), contentType);
        if (typeof text !== 'string') {
          return finish(
            failure(
              'feed_unreadable',
              `The feed is in a character set that cannot be read (${text.charset}): publish it in UTF-8`,
              url,
              { bytes },
            ),
          );
        }
        finish({
          status: 200,
          body: text,
          etag: res.headers.etag ?? null,
          lastModified: res.headers['last-modified'] ?? null,
          contentType,
          link: typeof res.headers.link === 'string' ? res.headers.link.slice(0, 4000) : null,
          totalPages:
            typeof res.headers['x-wp-totalpages'] === 'string' ? res.headers['x-wp-totalpages'].slice(0, 12) : null,
          finalUrl: url.href,
          bytes,
        });
      };
      const take = (chunk: Buffer) => {
        if (settled) return;
        bytes += chunk.length;
        if (bytes > x.cap) return finish(tooLarge(url, x.cap, x.byBudget, bytes));
        chunks.push(chunk);
      };

      let wire = 0;
      let inflate: Decompressor | null | undefined;
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        if (inflate === undefined) {
          inflate = decompressor(encoding, chunk);
          if (inflate === undefined) {
            return finish(
              failure(
                'feed_unreadable',
                `The shop's server compressed the feed as "${encoding}", which cannot be read: serve it plain, gzip, deflate or br`,
                url,
              ),
            );
          }
          if (inflate) {
            open.push(inflate);
            inflate.on('data', take);
            inflate.on('end', done);
            inflate.on('error', () =>
              finish(
                failure(
                  'feed_unreadable',
                  `The feed is not valid ${encoding} although the shop's server says so: serve it plain, or compressed whole`,
                  url,
                  { bytes },
                ),
              ),
            );
          }
        }
        if (!inflate) return take(chunk);
        // compressed bytes count too: what is larger than the cap packed is larger unpacked
        wire += chunk.length;
        if (wire > x.cap) return finish(tooLarge(url, x.cap, x.byBudget, bytes));
        if (!inflate.write(chunk)) {
          res.pause();
          inflate.once('drain', () => res.resume());
        }
      });
      res.on('end', () => {
        if (inflate) inflate.end();
        else done();
      });
      res.on('error', (err) => finish(unreachable(url, err, bytes)));
    });
    req.end(x.body);
  });
}

/** The body as text, or the charset no decoder reads. */
function decodeBody(body: Buffer, contentType: string | null): string | { charset: string } {
  let label = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1] ?? null;
  // a byte-order mark is the surest sign; then an XML declaration, when the header says nothing
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) label = 'utf-8';
  else if (body[0] === 0xff && body[1] === 0xfe) label = 'utf-16le';
  else if (body[0] === 0xfe && body[1] === 0xff) label = 'utf-16be';
  else if (!label) {
    const head = body.subarray(0, 200).toString('latin1');
    label = /^\s*<\?xml[^>]*\sencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(head)?.[1] ?? 'utf-8';
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label);
  } catch {
    return { charset: label };
  }
  return decoder.decode(body);
}
