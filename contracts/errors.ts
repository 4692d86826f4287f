import { type TSchema, Type } from '@sinclair/typebox';

/**
 * Every error code the service answers with, its status and when: the one
 * source of the OpenAPI document's error responses (each operation lists the
 * statuses it answers, with the codes each can carry as an enum) and of the
 * table in docs/widget-api.md, which tests/contract.test.ts holds to it.
 */
export const ERRORS = {
  validation_failed: { status: 400, when: 'a field of the wrong type, size or value (with `details`)' },
  unknown_field: {
    status: 400,
    when: 'a field the operation does not define, in the body or the query (with `details` naming it)',
  },
  invalid_json: {
    status: 400,
    when: 'the body is not JSON, or holds a `__proto__`/`constructor.prototype` key, or nests deeper than 32',
  },
  invalid_content_length: { status: 400, when: 'the body is shorter or longer than its Content-Length' },
  client_closed_request: { status: 400, when: 'the client closed the connection before its body arrived' },
  unstorable_text: {
    status: 400,
    when: 'a string, object key, path parameter or query value holds a NUL character or an unpaired UTF-16 surrogate, which PostgreSQL cannot store',
  },
  too_many_values: {
    status: 400,
    when: 'a JSON body read before its sender is known (widget operations, the console, the unsigned platform posts) holding more than 60,000 values, 25,000 keys, 1,000 keys in one object, 2,000 different sequences of keys in its objects or 3,000 different strings of 10 characters or fewer',
  },
  bad_url: { status: 400, when: 'a URL, or a path parameter, that cannot be decoded' },
  bad_request: { status: 400, when: 'before any operation: a request HTTP itself refuses' },
  unsupported_widget_version: { status: 400, when: 'an `X-Widget-Version` this server does not speak' },
  invalid_quiz: {
    status: 400,
    when: 'score: a family, accord, rating, season or occasion the vocabulary lacks; no family and no rating (with `details`)',
  },
  invalid_inline_catalog: { status: 400, when: 'score, inline mode: a bad product row (with `details`)' },
  empty_lookup: { status: 400, when: 'lookup: no query, house or ids' },
  invalid_event: { status: 400, when: 'event: an unknown type, a missing or bad field (with `details`)' },
  invalid_phone: {
    status: 400,
    when: "event: a lead's phone that is not a phone number, read in the merchant's country when it has no country code (with `details`)",
  },
  invalid_merchant: { status: 400, when: 'admin: a merchant name or slug that cannot be stored' },
  invalid_feed: {
    status: 400,
    when: 'admin: a feed source with an unknown kind, a URL that is not https (or holds credentials), or a Shopify Admin API source without its token',
  },
  invalid_console_user: {
    status: 400,
    when: 'admin: a console user with a bad email, a password not 10–200 characters long, or an owner or staff member without a merchant',
  },
  invalid_origins: {
    status: 400,
    when: 'admin: an allowed origin that is not an origin, or a wildcard over a public suffix',
  },
  invalid_webhook_url: {
    status: 400,
    when: 'admin lead settings: a webhook URL that is not http(s), holds credentials, or names a loopback or private address',
  },
  invalid_period: { status: 400, when: 'admin analytics: `from` is not before `to`' },
  invalid_platform_webhook: {
    status: 400,
    when: "platform webhooks: a body that is not the platform's JSON envelope (an event and the store's id)",
  },
  invalid_signature: {
    status: 401,
    when: "platform webhooks: no signature, or one that is not the HMAC of the body with the app's secret (Salla); a URL without the store's webhook secret (Zid)",
  },
  invalid_oauth_state: {
    status: 400,
    when: "console: a platform's install callback without the state this browser was given, or without a code; a Salla dashboard token Salla refuses; a one-time sign-in link expired or used; a WooCommerce connection its store does not confirm, or a connect token forged or ended",
  },
  install_refused: { status: 400, when: 'console: the merchant did not authorize the app on the platform' },
  missing_api_key: { status: 401, when: 'widget operations: no key in the body or `Authorization`' },
  invalid_api_key: { status: 401, when: 'widget operations: a key that is not one of ours' },
  invalid_admin_token: { status: 401, when: 'admin: no or a wrong `Authorization: Bearer <ADMIN_TOKEN>`' },
  revoked_api_key: { status: 403, when: 'widget operations: the key was revoked' },
  origin_not_allowed: {
    status: 403,
    when: "widget operations: the page's `Origin` is not among the key's allowed origins",
  },
  admin_disabled: { status: 404, when: 'admin: `ADMIN_TOKEN` is not set' },
  not_found: { status: 404, when: 'an unknown route, or a widget file that does not exist' },
  merchant_not_found: { status: 404, when: 'admin: no merchant with this id' },
  key_not_found: { status: 404, when: 'admin: no key with this id' },
  product_not_found: { status: 404, when: 'admin: the merchant has no product with this id' },
  proposal_not_found: {
    status: 404,
    when: "admin: no merchant's answer proposes anything for this perfume, or no new perfume is proposed with this id",
  },
  identity_exists: {
    status: 409,
    when: 'admin: an approved new perfume the catalog has already (the same id, or the same house, name and concentration)',
  },
  already_reviewed: { status: 409, when: 'admin: a review of a proposed new perfume approved already' },
  invalid_answer: {
    status: 400,
    when: "admin and console: a product's answer naming a note or an accord the vocabulary does not know, too many of them, or an original that is not in the catalog or has no profile",
  },
  invalid_kind: {
    status: 400,
    when: "admin: a product's kind corrected to one that is not a kind of product (spray, oil, bakhoor, oud_wood, mist, gift_set, sample, other)",
  },
  invalid_review: {
    status: 400,
    when: 'admin: a review of a proposal without a reason, or naming a fact merchants do not propose; an approved new perfume whose listings state no concentration or gender and the review gives none, whose name gives no Latin letter, or whose record the catalog refuses',
  },
  perfume_not_found: { status: 404, when: 'admin: no perfume of the catalog with this id (a pin, a read)' },
  demo_disabled: { status: 404, when: 'the demo storefront, on an instance that serves no demo' },
  feed_not_found: { status: 404, when: 'admin: no feed source with this id' },
  platform_not_configured: { status: 404, when: "platforms: the platform's app is not set up on this service" },
  unknown_store: {
    status: 404,
    when: 'platforms: a store that has not installed the app (its webhooks other than install are refused, nothing stored)',
  },
  lead_not_found: { status: 404, when: 'console: the merchant has no lead with this id (erased already)' },
  user_not_found: { status: 404, when: 'console: the merchant has no console user with this id' },
  invalid_csrf_token: {
    status: 403,
    when: "console: a form sent without its CSRF token, with another user's, or older than a session",
  },
  not_signed_in: { status: 401, when: 'console: a change sent without a signed-in session (expired, or signed out)' },
  forbidden: { status: 403, when: "console: a staff member asking for an owner's page (keys, leads, team)" },
  cannot_remove_self: { status: 400, when: 'console: a user removing their own account from the team' },
  confirm_mismatch: {
    status: 400,
    when: "admin: a merchant's erasure without `confirm`, or with one that is not the merchant's slug (nothing erased)",
  },
  slug_taken: {
    status: 409,
    when: 'admin: another merchant has this slug (an erasing one holds its slug until it is gone)',
  },
  email_taken: {
    status: 409,
    when: "admin and the Team page: another console user holds this email (one an owner's Team page or a WooCommerce connection typed yields to the admin's)",
  },
  feed_exists: { status: 409, when: 'admin: the merchant already has a feed source with this URL' },
  feed_busy: { status: 409, when: 'admin: a pull of this feed is under way (on this or another instance)' },
  signed_in_elsewhere: {
    status: 409,
    when: "console: a one-time sign-in link (Salla's dashboard page) opened in a browser signed in as someone else",
  },
  store_connected: {
    status: 409,
    when: 'WooCommerce: another installation of the plugin is still connected at the store’s address (it disconnects first)',
  },
  store_not_installed: {
    status: 409,
    when: 'feeds of a platform store: the store has uninstalled the app, or its tokens have not arrived yet',
  },
  merchant_erasing: {
    status: 410,
    when: 'admin: the merchant is being erased (its rows are deleted in the background; then 404 `merchant_not_found`)',
  },
  payload_too_large: {
    status: 413,
    when: "a body over its operation's limit, refused before it is read: score 1 MiB, lookup 32 KiB, verify 4 KiB, event 64 KB; platform webhooks 256 KiB (Shopify's and Zid's 1 MiB), the other platform posts 16 KiB; console 64 KB; admin product sync 64 MB",
  },
  uri_too_long: { status: 414, when: 'a URL too long, or a path parameter over 200 characters' },
  unsupported_media_type: {
    status: 415,
    when: 'a body that is not `application/json` (event also takes `text/plain` holding JSON)',
  },
  rate_limited: {
    status: 429,
    when: 'widget operations and admin tokens: too many requests; platform posts: 60 refused from the address this minute (with `Retry-After`)',
  },
  internal_error: { status: 500, when: 'details only in the server log, under the request id' },
  platform_error: {
    status: 502,
    when: "a platform store's feed: the platform's API (a token refresh) answered an error, or nothing usable",
  },
  shutting_down: {
    status: 503,
    when: "any: the request reached an instance that is shutting down; retry (the proxy's next upstream answers)",
  },
  overloaded: {
    status: 503,
    when: 'score, inline: 16 inline catalogs already wait to be matched on this instance; score and the platform webhooks: a body over 64 KB from a sender not known before its body, past what this instance reads of those a second (`LARGE_BODY_BYTES_PER_SECOND`), not read (with `Retry-After`)',
  },
  database_unavailable: {
    status: 503,
    when: 'the database did not answer (within `DB_TIMEOUT_MS`, 3 s by default); for events: nothing of the request was stored',
  },
  write_outcome_unknown: {
    status: 503,
    when: 'events and admin changes: the commit was sent and not confirmed in time; it may be stored. Read it back, or resend events with the same `event_id`s: stored once',
  },
} as const satisfies Record<string, { status: number; when: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** What any operation can answer (a query value is read, and refused when unstorable, on every route). */
export const ANY_OPERATION: readonly ErrorCode[] = ['internal_error', 'shutting_down', 'unstorable_text'];
/** …one with a path parameter or a query string */
export const WITH_INPUT: readonly ErrorCode[] = ['unstorable_text', 'validation_failed', 'unknown_field'];
/** …one with a path parameter: the router refuses a segment over 200 characters, or one that cannot be decoded */
export const PATH_PARAM: readonly ErrorCode[] = ['uri_too_long', 'bad_url'];
/** …one that reads a JSON body */
export const WITH_BODY: readonly ErrorCode[] = [
  ...WITH_INPUT,
  'invalid_json',
  'invalid_content_length',
  'client_closed_request',
  'payload_too_large',
  'unsupported_media_type',
];
/** …a widget operation (key, origin, version, limits, the database behind the key) */
export const WIDGET_OPERATION: readonly ErrorCode[] = [
  ...ANY_OPERATION,
  ...WITH_BODY,
  'too_many_values',
  'unsupported_widget_version',
  'missing_api_key',
  'invalid_api_key',
  'revoked_api_key',
  'origin_not_allowed',
  'rate_limited',
  'database_unavailable',
];
/** …an admin read */
export const ADMIN_READ: readonly ErrorCode[] = [
  ...ANY_OPERATION,
  ...WITH_INPUT,
  'invalid_admin_token',
  'rate_limited',
  'database_unavailable',
];
/** …an admin change */
export const ADMIN_CHANGE: readonly ErrorCode[] = [...ADMIN_READ, ...WITH_BODY, 'write_outcome_unknown'];

const STATUS_TEXT: Record<number, string> = {
  400: 'The request is not one this operation takes',
  401: 'No credentials, or credentials that are not ours',
  403: 'Credentials that may not be used here',
  404: 'Not found',
  409: 'Conflicts with what is stored',
  410: 'Gone: being erased',
  413: 'The body is too large',
  415: 'The body is not of a media type this operation takes',
  429: 'Too many requests: retry after `Retry-After` seconds',
  500: 'The server failed; the request id names it in the server log',
  502: 'A service this operation depends on answered an error',
  503: 'Unavailable for now: retry after `Retry-After` seconds',
};

/**
 * A response header every such answer carries: `required: true` in the document (a header's
 * schema cannot say so; plugins/external/swagger.ts lifts it onto the header object).
 */
export const ALWAYS_SENT = 'x-always-sent';

export const REQUEST_ID_HEADER = {
  'x-request-id': {
    type: 'string',
    [ALWAYS_SENT]: true,
    description:
      'The request id (the caller’s own X-Request-Id when it sent a short token), on every log line of the request',
  },
} as const;
const RETRY_AFTER_HEADER = {
  'retry-after': { type: 'integer', minimum: 0, description: 'Seconds to wait before retrying', [ALWAYS_SENT]: true },
} as const;
/** Sent on every answer of a widget operation that counts against a key's limit. */
export const RATE_LIMIT_HEADERS = {
  'x-ratelimit-limit': { type: 'integer', description: 'Requests a minute this key may make of this operation' },
  'x-ratelimit-remaining': { type: 'integer', description: 'Requests left in the current minute' },
  'x-ratelimit-reset': { type: 'integer', description: 'Seconds until the minute restarts' },
} as const;

/** Headers every answer of the statuses that carry them has, whatever its code. */
export function headersOf(status: number, rateLimited = false): Record<string, unknown> {
  return {
    ...REQUEST_ID_HEADER,
    ...(status === 429 || status === 503 ? RETRY_AFTER_HEADER : {}),
    ...(rateLimited ? RATE_LIMIT_HEADERS : {}),
  };
}

/**
 * The error responses of an operation that can answer these codes: for each
 * status, the error shape with `code` held to the codes of that status, a
 * description, and the headers the answer carries.
 */
export function errorResponses(codes: readonly ErrorCode[], opts: { rateLimited?: boolean } = {}) {
  const byStatus = new Map<number, Set<ErrorCode>>();
  for (const code of codes) {
    const status = ERRORS[code].status;
    const set = byStatus.get(status) ?? new Set<ErrorCode>();
    set.add(code);
    byStatus.set(status, set);
  }
  const out: Record<string, TSchema> = {};
  for (const [status, set] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const list = [...set].sort();
    out[String(status)] = Type.Object(
      {
        error: Type.String({ description: 'A sentence for people' }),
        code: Type.Unsafe<ErrorCode>({
          type: 'string',
          enum: list,
          description: list.map((c) => `\`${c}\`: ${ERRORS[c].when}`).join('; '),
        }),
        details: Type.Optional(
          Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), {
            description: 'Validation problems, one per field',
          }),
        ),
      },
      {
        title: 'Error',
        description: STATUS_TEXT[status] ?? 'Error',
        headers: headersOf(status, opts.rateLimited && status === 429),
      },
    );
  }
  return out;
}

/** The codes of a list that a given status answers with. */
export const codesOfStatus = (codes: readonly ErrorCode[], status: number) =>
  codes.filter((c) => ERRORS[c].status === status);

/**
 * A success response as the document describes it: its schema, a sentence
 * and the headers it carries.
 */
export function success<T extends TSchema>(
  schema: T,
  description: string,
  opts: { rateLimited?: boolean; example?: unknown; headers?: Record<string, unknown> } = {},
): T {
  return {
    ...schema,
    description,
    headers: { ...headersOf(200, opts.rateLimited), ...opts.headers },
    ...(opts.example === undefined ? {} : { examples: [opts.example] }),
  };
}

/** The table of docs/widget-api.md, from ERRORS: `npm run docs:errors` writes it, a test holds it. */
export function errorTable(): string {
  const rows = (Object.entries(ERRORS) as [ErrorCode, { status: number; when: string }][])
    .sort((a, b) => a[1].status - b[1].status)
    .map(([code, e]) => `| ${e.status} | \`${code}\` | ${e.when} |`);
  return ['| status | code | when |', '|---|---|---|', ...rows].join('\n');
}
