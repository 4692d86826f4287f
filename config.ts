import { isIP } from 'node:net';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * Every setting of the service comes from the environment (see .env.example).
 * The raw strings are validated once at boot; a bad value stops start-up with
 * one line naming the variable.
 */
export const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^(postgres(ql)?://.+|memory:)$',
      description: 'postgres://… for PostgreSQL, memory: for in-memory PGlite, unset for PGlite on disk',
    }),
  ),
  PGLITE_DATA_DIR: Type.String({ minLength: 1, default: './.data/pglite' }),
  PGLITE_SHARED_BUFFERS_MB: Type.Integer({ minimum: 1, maximum: 1024, default: 16 }),
  ADMIN_TOKEN: Type.Optional(Type.String({ minLength: 24, description: 'at least 24 characters' })),
  ADMIN_URL: Type.Optional(
    Type.String({ pattern: '^https?://[^\\s/]+(/[^\\s]*)?$', description: 'http(s)://host:port of a running server' }),
  ),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://.+' })),
  TRUST_PROXY: Type.Optional(Type.String({ minLength: 1 })),
  PUBLIC_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s/]+(/[^\\s]*)?$' })),
  POWERED_BY_URL: Type.String({
    pattern: '^https?://[^\\s/]+(/[^\\s]*)?$',
    default: 'https://sillage.app/powered-by',
  }),
  LEAD_ENCRYPTION_KEY: Type.Optional(
    Type.String({
      pattern: '^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$',
      description: '32 bytes as 64 hex characters or base64',
    }),
  ),
  LEAD_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 3650, default: 365 }),
  EVENT_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 3650, default: 730 }),
  ADDRESS_RATE_LIMIT: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 3000 }),
  REFUSED_KEY_LIMIT: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 30 }),
  LARGE_BODY_BYTES_PER_SECOND: Type.Integer({ minimum: 0, maximum: 1_073_741_824, default: 1_048_576 }),
  MAX_CONNECTIONS: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 4096 }),
  DB_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 120_000, default: 3000 }),
  ATTRIBUTION_WINDOW_DAYS: Type.Integer({ minimum: 1, maximum: 365, default: 30 }),
  REQUEST_TIMEOUT_MS: Type.Integer({ minimum: 1000, maximum: 300_000, default: 30_000 }),
  SMTP_URL: Type.Optional(
    Type.String({
      pattern: '^smtps?://[^\\s]+$',
      description: 'smtp://user:password@host:587 (STARTTLS) or smtps://…:465 (TLS)',
    }),
  ),
  SMTP_FROM: Type.Optional(
    Type.String({
      minLength: 3,
      maxLength: 200,
      pattern: '^[^\\r\\n]*@[^\\r\\n]*$',
      description: 'an address, or "Name <address>"',
    }),
  ),
  WEBHOOK_ALLOW_PRIVATE: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'true or false' }),
  ),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 5000 }),
  WEBHOOK_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 20, default: 8 }),
  WEBHOOK_RETRY_BASE_MS: Type.Integer({ minimum: 10, maximum: 3_600_000, default: 30_000 }),
  WEBHOOK_POLL_MS: Type.Integer({ minimum: 10, maximum: 600_000, default: 5000 }),
  FEED_ALLOW_PRIVATE_HOSTS: Type.Optional(
    Type.String({ minLength: 1, description: 'comma-separated host names or IP addresses' }),
  ),
  SALLA_WEBHOOK_SECRET: Type.Optional(
    Type.String({
      minLength: 16,
      description: "the Salla app's webhook secret (Partner Portal), at least 16 characters",
    }),
  ),
  SALLA_CLIENT_ID: Type.Optional(Type.String({ minLength: 1 })),
  SALLA_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  SALLA_API_URL: Type.String({ pattern: '^https?://[^\\s/]+(/[^\\s]*)?$', default: 'https://api.salla.dev/admin/v2' }),
  SALLA_ACCOUNTS_URL: Type.String({ pattern: '^https?://[^\\s/]+(/[^\\s]*)?$', default: 'https://accounts.salla.sa' }),
  SALLA_APP_ID: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,20}$', description: "the Salla app's id (Partner Portal): its dashboard page" }),
  ),
  SALLA_INTROSPECT_URL: Type.String({
    pattern: '^https?://[^\\s/]+(/[^\\s]*)?$',
    default: 'https://api.salla.dev/exchange-authority/v1/introspect',
  }),
  SALLA_DASHBOARD_ORIGIN: Type.String({ pattern: '^https?://[^\\s/]+$', default: 'https://s.salla.sa' }),
  ZID_CLIENT_ID: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  ZID_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  ZID_API_URL: Type.String({ pattern: '^https?://[^\\s/]+(/[^\\s]*)?$', default: 'https://api.zid.sa/v1' }),
  ZID_OAUTH_URL: Type.String({ pattern: '^https?://[^\\s/]+(/[^\\s]*)?$', default: 'https://oauth.zid.sa' }),
  SHOPIFY_CLIENT_ID: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  SHOPIFY_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  /** where a shop's Admin API and OAuth are: `{shop}` is the shop's myshopify.com domain */
  SHOPIFY_SHOP_URL: Type.String({ pattern: '^https?://[^\\s]*\\{shop\\}[^\\s]*$', default: 'https://{shop}' }),
  WOOCOMMERCE_APP: Type.Union([Type.Literal('true'), Type.Literal('false')], {
    default: 'false',
    description: 'true or false: whether WooCommerce stores may connect through the plugin',
  }),
  SEED_DEMO: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'true or false' })),
  // no default in the schema: unset, it follows where the output goes (loadConfig)
  LOG_LEVEL: Type.Optional(
    Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
      { description: 'one of fatal, error, warn, info, debug, trace, silent' },
    ),
  ),
});

export type Env = Static<typeof EnvSchema>;

/** Never echoed back in an error line: they are credentials or may hold one. */
const SECRET_VARIABLES = new Set([
  'ADMIN_TOKEN',
  'LEAD_ENCRYPTION_KEY',
  'DATABASE_URL',
  'REDIS_URL',
  'SMTP_URL',
  'SALLA_WEBHOOK_SECRET',
  'SALLA_CLIENT_SECRET',
  'ZID_CLIENT_SECRET',
]);

export interface Config {
  port: number;
  host: string;
  /** embedded PGlite (on disk, or in memory when dataDir is null) or PostgreSQL, from DATABASE_URL */
  database:
    | {
        kind: 'pglite';
        dataDir: string | null;
        /** the embedded PostgreSQL's page cache in MB (its shared_buffers; 16 when unset: docs/operations.md) */
        sharedBuffersMb?: number;
      }
    | { kind: 'postgres'; url: string };
  adminToken: string | null;
  /** the running server the admin CLI talks to (ADMIN_URL); null: the local one at PORT, when it answers */
  adminUrl: string | null;
  redisUrl: string | null;
  /** addresses/CIDRs of trusted reverse proxies; empty = trust none */
  trustProxy: string[];
  publicBaseUrl: string;
  poweredByUrl: string;
  /** AES-256 key for shopper contact details; on the embedded database a local one is made when unset */
  leadEncryptionKey: Buffer | null;
  leadRetentionDays: number;
  /** widget events received longer ago than this are purged */
  eventRetentionDays: number;
  /** widget requests a minute one client address may send, all operations and keys together, before its body is read; 0: off */
  addressRateLimit: number;
  /** refused widget keys a minute one client address may send before its keys not known real get 429; 0: off */
  refusedKeyLimit: number;
  /** bytes of bodies over 64 KB from senders not proven before their body this instance reads a second, and as many with a known widget key (http/large-bodies.ts); 0: off */
  largeBodyBytesPerSecond: number;
  /** open connections this process accepts at once; more are closed on arrival (idle keep-alive ones count) */
  maxConnections: number;
  /** how long a request waits on the database (a connection, then its statements) before a 503 */
  dbTimeoutMs: number;
  /** a request (headers and body) must arrive within this; slow clients are cut off */
  requestTimeoutMs: number;
  attributionWindowDays: number;
  /** where "send me these picks" emails go out (nodemailer); null: no email, the shop contacts the shopper */
  smtp: { url: string; from: string } | null;
  /** merchants' lead webhooks (services/webhooks.ts, docs/webhooks.md) */
  webhooks: {
    /** let webhook URLs point at loopback and private addresses (a receiver on the operator's own network) */
    allowPrivate: boolean;
    timeoutMs: number;
    maxAttempts: number;
    /** wait before the second attempt; doubles after each failure (at most an hour) */
    retryBaseMs: number;
    /** how often an instance looks for deliveries due (a new lead's is sent at once) */
    pollMs: number;
  };
  /** shops' product feeds pulled from merchants' URLs (services/feed-fetch.ts) */
  feeds: {
    /**
     * hosts (names or addresses, as a feed URL writes them) a feed may be pulled from although they
     * are loopback or private, and over plain http: the operator's own network; lower case
     */
    allowPrivateHosts: string[];
  };
  /** the platforms' apps (docs/platforms.md); a platform without its secrets is off */
  platforms: {
    salla: {
      webhookSecret: string;
      clientId: string;
      clientSecret: string;
      /** the Merchant API's base */
      apiUrl: string;
      /** the OAuth server (token refresh, the store's identity) */
      accountsUrl: string;
      /**
       * the app's page in the merchant's Salla dashboard (docs/platforms.md): the app's id, whom
       * its tokens are checked as, where they are checked, and the dashboard that may frame it;
       * null without SALLA_APP_ID (no dashboard page)
       */
      dashboard: { appId: string; introspectUrl: string; origin: string } | null;
    } | null;
    zid: {
      clientId: string;
      clientSecret: string;
      /** the Merchant API's base (`https://api.zid.sa/v1`) */
      apiUrl: string;
      /** the OAuth server (authorize, token) */
      oauthUrl: string;
    } | null;
    shopify: {
      clientId: string;
      clientSecret: string;
      /** a shop's address, `{shop}` standing for its myshopify.com domain (`https://{shop}`; a simulator's in tests) */
      shopUrl: string;
    } | null;
    /** whether WooCommerce stores may connect through the plugin (apps/woocommerce) */
    woocommerce: boolean;
  };
  /** create the demo merchant, key and feed at start-up */
  seedDemo: boolean;
  logLevel: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function isCidrOrIp(entry: string): boolean {
  const [addr, bits, ...rest] = entry.split('/');
  if (rest.length > 0 || !addr) return false;
  const family = isIP(addr);
  if (family === 0) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/** A host name or an IP address as a URL's host reads it (lower case, IPv6 bracketed), or null. */
function feedHost(entry: string): string | null {
  const bare = entry.replace(/^\[|\]$/g, '');
  if (isIP(bare) === 6) return new URL(`http://[${bare}]/`).hostname;
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(entry)) return null;
  return new URL(`http://${entry}/`).hostname;
}

/**
 * Validates the environment and derives the typed config. Throws ConfigError naming the variable.
 * `where.terminal`: whether the log goes to a person's terminal. With LOG_LEVEL unset, a terminal
 * gets `warn` (the start banner stays on screen, errors and warnings still show) and anything else
 * (a service manager, a container, a pipe) gets `info`, a structured line per request
 * (docs/operations.md#logs).
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  where: { terminal: boolean } = { terminal: process.stdout.isTTY === true },
): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value.trim() !== '') raw[key] = value.trim();
  }
  const withDefaults = Value.Default(EnvSchema, raw);
  const converted = Value.Convert(EnvSchema, withDefaults);
  const first = Value.Errors(EnvSchema, converted).First();
  if (first) {
    const name = first.path.replace(/^\//, '') || 'environment';
    const got = raw[name];
    const schema = first.schema as { description?: string };
    const hint = schema.description ? ` (${schema.description})` : '';
    const shown = SECRET_VARIABLES.has(name) ? 'an invalid value' : `an invalid value "${String(got)}"`;
    throw new ConfigError(
      `Invalid configuration: ${name} ${got === undefined ? 'is missing' : `has ${shown}`}: ${first.message}${hint}`,
    );
  }
  const e = converted as Env;

  const trustProxy = (e.TRUST_PROXY ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of trustProxy) {
    if (!isCidrOrIp(entry)) {
      throw new ConfigError(
        `Invalid configuration: TRUST_PROXY entry "${entry}" is not an IP address or CIDR (never "true": the leftmost X-Forwarded-For is the client's to forge)`,
      );
    }
  }

  let leadKey: Buffer | null = null;
  if (e.LEAD_ENCRYPTION_KEY) {
    leadKey = /^[0-9a-fA-F]{64}$/.test(e.LEAD_ENCRYPTION_KEY)
      ? Buffer.from(e.LEAD_ENCRYPTION_KEY, 'hex')
      : Buffer.from(e.LEAD_ENCRYPTION_KEY, 'base64');
    if (leadKey.length !== 32) {
      throw new ConfigError('Invalid configuration: LEAD_ENCRYPTION_KEY must decode to exactly 32 bytes');
    }
  }

  const url = e.DATABASE_URL;
  const database: Config['database'] =
    url === undefined
      ? { kind: 'pglite', dataDir: e.PGLITE_DATA_DIR, sharedBuffersMb: e.PGLITE_SHARED_BUFFERS_MB }
      : url === 'memory:'
        ? { kind: 'pglite', dataDir: null, sharedBuffersMb: e.PGLITE_SHARED_BUFFERS_MB }
        : { kind: 'postgres', url };

  if (database.kind === 'postgres' && !leadKey) {
    throw new ConfigError(
      "Invalid configuration: LEAD_ENCRYPTION_KEY is required with PostgreSQL: shoppers' contact details are stored encrypted (generate one: node -e \"console.log(require('crypto').randomBytes(32).toString('hex'))\")",
    );
  }

  const allowPrivateHosts: string[] = [];
  for (const entry of (e.FEED_ALLOW_PRIVATE_HOSTS ?? '').split(',').map((s) => s.trim())) {
    if (!entry) continue;
    const host = feedHost(entry);
    if (!host) {
      throw new ConfigError(
        `Invalid configuration: FEED_ALLOW_PRIVATE_HOSTS entry "${entry}" is not a host name or an IP address (no scheme, port or path)`,
      );
    }
    allowPrivateHosts.push(host);
  }

  const sallaSet = [e.SALLA_WEBHOOK_SECRET, e.SALLA_CLIENT_ID, e.SALLA_CLIENT_SECRET].filter(Boolean).length;
  if (sallaSet > 0 && sallaSet < 3) {
    throw new ConfigError(
      'Invalid configuration: the Salla app needs SALLA_WEBHOOK_SECRET, SALLA_CLIENT_ID and SALLA_CLIENT_SECRET together (or none: the Salla app is off)',
    );
  }
  if (Boolean(e.ZID_CLIENT_ID) !== Boolean(e.ZID_CLIENT_SECRET)) {
    throw new ConfigError(
      'Invalid configuration: the Zid app needs ZID_CLIENT_ID and ZID_CLIENT_SECRET together (or neither: the Zid app is off)',
    );
  }
  if (Boolean(e.SHOPIFY_CLIENT_ID) !== Boolean(e.SHOPIFY_CLIENT_SECRET)) {
    throw new ConfigError(
      'Invalid configuration: the Shopify app needs SHOPIFY_CLIENT_ID and SHOPIFY_CLIENT_SECRET together (or neither: the Shopify app is off)',
    );
  }
  if (e.SMTP_URL && !e.SMTP_FROM) {
    throw new ConfigError(
      'Invalid configuration: SMTP_FROM is required with SMTP_URL: the address the picks emails come from',
    );
  }

  const shownHost = e.HOST === '0.0.0.0' || e.HOST === '::' ? '127.0.0.1' : e.HOST;
  const publicBaseUrl = (
    e.PUBLIC_BASE_URL ?? `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${e.PORT}`
  ).replace(/\/+$/, '');

  return {
    port: e.PORT,
    host: e.HOST,
    database,
    adminToken: e.ADMIN_TOKEN ?? null,
    adminUrl: e.ADMIN_URL?.replace(/\/+$/, '') ?? null,
    redisUrl: e.REDIS_URL ?? null,
    trustProxy,
    publicBaseUrl,
    poweredByUrl: e.POWERED_BY_URL,
    leadEncryptionKey: leadKey,
    leadRetentionDays: e.LEAD_RETENTION_DAYS,
    eventRetentionDays: e.EVENT_RETENTION_DAYS,
    addressRateLimit: e.ADDRESS_RATE_LIMIT,
    refusedKeyLimit: e.REFUSED_KEY_LIMIT,
    largeBodyBytesPerSecond: e.LARGE_BODY_BYTES_PER_SECOND,
    maxConnections: e.MAX_CONNECTIONS,
    dbTimeoutMs: e.DB_TIMEOUT_MS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    attributionWindowDays: e.ATTRIBUTION_WINDOW_DAYS,
    smtp: e.SMTP_URL ? { url: e.SMTP_URL, from: e.SMTP_FROM as string } : null,
    webhooks: {
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE === 'true',
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      pollMs: e.WEBHOOK_POLL_MS,
    },
    feeds: { allowPrivateHosts },
    platforms: {
      salla:
        e.SALLA_WEBHOOK_SECRET && e.SALLA_CLIENT_ID && e.SALLA_CLIENT_SECRET
          ? {
              webhookSecret: e.SALLA_WEBHOOK_SECRET,
              clientId: e.SALLA_CLIENT_ID,
              clientSecret: e.SALLA_CLIENT_SECRET,
              apiUrl: e.SALLA_API_URL.replace(/\/+$/, ''),
              accountsUrl: e.SALLA_ACCOUNTS_URL.replace(/\/+$/, ''),
              dashboard: e.SALLA_APP_ID
                ? { appId: e.SALLA_APP_ID, introspectUrl: e.SALLA_INTROSPECT_URL, origin: e.SALLA_DASHBOARD_ORIGIN }
                : null,
            }
          : null,
      zid:
        e.ZID_CLIENT_ID && e.ZID_CLIENT_SECRET
          ? {
              clientId: e.ZID_CLIENT_ID,
              clientSecret: e.ZID_CLIENT_SECRET,
              apiUrl: e.ZID_API_URL.replace(/\/+$/, ''),
              oauthUrl: e.ZID_OAUTH_URL.replace(/\/+$/, ''),
            }
          : null,
      shopify:
        e.SHOPIFY_CLIENT_ID && e.SHOPIFY_CLIENT_SECRET
          ? {
              clientId: e.SHOPIFY_CLIENT_ID,
              clientSecret: e.SHOPIFY_CLIENT_SECRET,
              shopUrl: e.SHOPIFY_SHOP_URL.replace(/\/+$/, ''),
            }
          : null,
      woocommerce: e.WOOCOMMERCE_APP === 'true',
    },
    seedDemo: e.SEED_DEMO ? e.SEED_DEMO === 'true' : database.kind === 'pglite',
    logLevel: e.LOG_LEVEL ?? (where.terminal ? 'warn' : 'info'),
  };
}
