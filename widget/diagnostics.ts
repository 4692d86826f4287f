/**
 * Install diagnostics for the merchant's developer: every refusal the widget
 * meets prints ONE console line naming the cause and the fix, once per page
 * and cause. The key is never printed whole — only its first 12 characters,
 * the `prefix` the admin API lists keys by. These lines, like the debug
 * panel's, are in English: they are read in the browser's developer tools,
 * beside the browser's own messages (docs/decisions.md).
 */

export interface Problem {
  /** what went wrong, for the console and the debug panel */
  cause: string;
  /** what the merchant does about it */
  fix: string;
}

/** `pk_live_AbCd…`: the admin API's `prefix` (12 characters), never the whole key. */
export function maskKey(key: string): string {
  return `${key.slice(0, 12)}…`;
}

const ADMIN = 'the admin API (docs/admin.md) or `npm run admin --`';

/**
 * The sentence for a refusal: `code` is the service's error code (or the
 * client's `timeout`, `network`, `csp_blocked`, `catalog_not_ready`).
 */
export function explain(
  code: string,
  ctx: { key: string; origin: string; base: string; op: string; retryAfter?: number; counts?: string },
): Problem {
  const k = maskKey(ctx.key);
  switch (code) {
    case 'missing_api_key':
    case 'invalid_api_key':
    case 'not_configured':
      return {
        cause: `the key ${ctx.key ? k : '(none)'} is not a Sillage widget key`,
        fix: `set the key attribute (data-key on the script tag) to a key created with ${ADMIN}: POST /api/admin/merchants/:id/keys, or keys:create`,
      };
    case 'no_base_url':
      return {
        cause: 'the address of the Sillage service is not known',
        fix: 'load sillage.js from the service itself, or give its address in data-base-url (base-url on the element)',
      };
    case 'revoked_api_key':
      return {
        cause: `the key ${k} was revoked`,
        fix: `create a new key with ${ADMIN} (POST /api/admin/merchants/:id/keys, or keys:create) and put it in the key attribute`,
      };
    case 'origin_not_allowed':
      return {
        cause: `this page's origin ${ctx.origin} is not allowed for key ${k}`,
        fix: `add ${ctx.origin} to the key's allowed origins with ${ADMIN}: PATCH /api/admin/keys/:id {"allowed_origins": [...]}, or keys:origins (keys:list shows the key's id by its prefix)`,
      };
    case 'catalog_not_ready':
      return {
        cause: `the merchant's products cannot be recommended yet${ctx.counts ? ` (${ctx.counts})` : ''}`,
        fix: `sync products with ${ADMIN} (PUT /api/admin/merchants/:id/products, or products:sync) and check their match status; the widget asks again after 10 s`,
      };
    case 'rate_limited':
      return {
        cause: `too many ${ctx.op} requests from this browser (429)`,
        fix: `the widget waits ${ctx.retryAfter ?? 60} s (Retry-After) before asking again; if this is constant, look for a script on the page that calls ${ctx.base}/api/widget/${ctx.op} in a loop`,
      };
    case 'csp_blocked':
      return {
        cause: `this page's Content-Security-Policy blocks ${ctx.base}`,
        fix: `add ${ctx.base} to the page's connect-src and script-src directives`,
      };
    case 'network':
      return {
        cause: `${ctx.base}/api/widget/${ctx.op} could not be reached (network error)`,
        fix: `check that the service answers at ${ctx.base}, and that the page's Content-Security-Policy allows it in connect-src`,
      };
    case 'timeout':
      return {
        cause: `${ctx.base}/api/widget/${ctx.op} did not answer in time`,
        fix: `check the service's health at ${ctx.base}/healthz; the shopper is offered a retry`,
      };
    default:
      return {
        cause: `${ctx.op} failed (${code})`,
        fix: `the service's log has the details under the request id; the widget keeps the page as it was`,
      };
  }
}

const printed = new Set<string>();
/** the last problem on this page, for the debug panel */
let last: Problem | null = null;
const listeners = new Set<(p: Problem) => void>();

/** Prints the problem's line once per page (per code and key). */
export function report(code: string, key: string, p: Problem): void {
  last = p;
  for (const fn of listeners) fn(p);
  const id = `${code}\u0000${key}`;
  if (printed.has(id)) return;
  printed.add(id);
  const line = `Sillage: ${p.cause}; ${p.fix}.`;
  try {
    // a passing condition is a warning; a refusal that keeps the widget away is an error
    if (code === 'rate_limited' || code === 'timeout') console.warn(line);
    else console.error(line);
  } catch {
    // a page that replaced console
  }
}

export function lastProblem(): Problem | null {
  return last;
}
export function onProblem(fn: (p: Problem) => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

const blockedOrigins = new Set<string>();
let watching = false;

function originOf(base: string): string {
  try {
    return new URL(base).origin;
  } catch {
    return base;
  }
}

/**
 * Watches for the page's CSP refusing the service: a `securitypolicyviolation`
 * whose blocked URL is the service's prints the CSP line, and a network
 * failure of that service is then known to be the CSP's doing.
 */
export function watchCsp(base: string, key: string): void {
  const origin = originOf(base);
  if (watching) return;
  watching = true;
  document.addEventListener('securitypolicyviolation', (e) => {
    const uri = (e as SecurityPolicyViolationEvent).blockedURI || '';
    if (!uri.startsWith(origin)) return;
    blockedOrigins.add(origin);
    report('csp_blocked', key, explain('csp_blocked', { key, origin: location.origin, base: origin, op: 'verify' }));
  });
}

/**
 * A call that failed without an answer: the CSP line when the page's policy
 * blocked it (its violation event may come just after the failure, so this
 * looks a moment later), else the network line.
 */
export function reportNetwork(base: string, key: string, op: string): void {
  setTimeout(() => {
    const origin = originOf(base);
    if (blockedOrigins.has(origin)) return; // already said, as the CSP's doing
    report('network', key, explain('network', { key, origin: location.origin, base: origin, op }));
  }, 100);
}
