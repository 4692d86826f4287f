import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, EnvSchema, loadConfig } from '../config.ts';

function errorOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration', () => {
  it('has working defaults: embedded PGlite on disk, demo data, port 3000', () => {
    const c = loadConfig({});
    expect(c.database).toEqual({ kind: 'pglite', dataDir: './.data/pglite', sharedBuffersMb: 16 });
    expect(c.port).toBe(3000);
    expect(c.seedDemo).toBe(true);
    expect(c.adminToken).toBeNull();
    expect(c.publicBaseUrl).toBe('http://127.0.0.1:3000');
  });

  it('logs warnings and errors at a terminal and a line per request elsewhere, unless LOG_LEVEL says', () => {
    expect(loadConfig({}, { terminal: true }).logLevel).toBe('warn');
    expect(loadConfig({}, { terminal: false }).logLevel).toBe('info');
    expect(loadConfig({ LOG_LEVEL: 'debug' }, { terminal: true }).logLevel).toBe('debug');
    expect(loadConfig({ LOG_LEVEL: 'error' }, { terminal: false }).logLevel).toBe('error');
  });

  it('derives the database from DATABASE_URL; no demo data on PostgreSQL unless asked', () => {
    expect(loadConfig({ DATABASE_URL: 'memory:' }).database).toEqual({
      kind: 'pglite',
      dataDir: null,
      sharedBuffersMb: 16,
    });
    expect(loadConfig({ PGLITE_SHARED_BUFFERS_MB: '64' }).database).toMatchObject({ sharedBuffersMb: 64 });
    expect(() => loadConfig({ PGLITE_SHARED_BUFFERS_MB: '0' })).toThrow(/PGLITE_SHARED_BUFFERS_MB/);
    const key = 'ab'.repeat(32);
    const pg = loadConfig({ DATABASE_URL: 'postgres://u@db:5432/x', LEAD_ENCRYPTION_KEY: key });
    expect(pg.database).toEqual({ kind: 'postgres', url: 'postgres://u@db:5432/x' });
    expect(pg.seedDemo).toBe(false);
    expect(
      loadConfig({ DATABASE_URL: 'postgres://u@db/x', SEED_DEMO: 'true', LEAD_ENCRYPTION_KEY: key }).seedDemo,
    ).toBe(true);
  });

  it("refuses to start on PostgreSQL without a key for shoppers' contact details", () => {
    expect(errorOf({ DATABASE_URL: 'postgres://u@db/x' })).toMatch(/LEAD_ENCRYPTION_KEY is required with PostgreSQL/);
  });

  it('names the variable in one line for each bad value', () => {
    expect(errorOf({ PORT: 'eighty' })).toMatch(/^Invalid configuration: PORT .*integer/);
    expect(errorOf({ PORT: '70000' })).toMatch(/PORT/);
    expect(errorOf({ DATABASE_URL: 'mysql://x' })).toMatch(/DATABASE_URL/);
    expect(errorOf({ REDIS_URL: 'localhost:6379' })).toMatch(/REDIS_URL/);
    expect(errorOf({ LOG_LEVEL: 'loud' })).toMatch(/LOG_LEVEL.*fatal, error, warn, info/);
    expect(errorOf({ POWERED_BY_URL: 'not a url' })).toMatch(/POWERED_BY_URL/);
    expect(errorOf({ SEED_DEMO: 'yes' })).toMatch(/SEED_DEMO/);
    for (const env of [{ PORT: 'x' }, { ADMIN_TOKEN: 'short' }] as Record<string, string>[])
      expect(errorOf(env).split('\n')).toHaveLength(1);
  });

  it('never echoes a secret in the error line', () => {
    const msg = errorOf({ ADMIN_TOKEN: 'hunter2' });
    expect(msg).toMatch(/ADMIN_TOKEN/);
    expect(msg).not.toContain('hunter2');
    expect(errorOf({ DATABASE_URL: 'mysql://root:s3cret@db' })).not.toContain('s3cret');
    expect(errorOf({ LEAD_ENCRYPTION_KEY: 'topsecretbutshort' })).not.toContain('topsecret');
  });

  it('turns the Salla app on with its three secrets together, never one or two, and never echoes them', () => {
    expect(loadConfig({}).platforms.salla).toBeNull();
    const on = {
      SALLA_WEBHOOK_SECRET: 'whsec-0123456789abcdef',
      SALLA_CLIENT_ID: 'client',
      SALLA_CLIENT_SECRET: 'client-secret-value',
    };
    expect(loadConfig(on).platforms.salla).toEqual({
      webhookSecret: on.SALLA_WEBHOOK_SECRET,
      clientId: 'client',
      clientSecret: on.SALLA_CLIENT_SECRET,
      apiUrl: 'https://api.salla.dev/admin/v2',
      accountsUrl: 'https://accounts.salla.sa',
      dashboard: null,
    });
    // the dashboard page: on with the app's id, checked at Salla's introspection, framed by Salla's dashboard only
    expect(loadConfig({ ...on, SALLA_APP_ID: '1234567890' }).platforms.salla?.dashboard).toEqual({
      appId: '1234567890',
      introspectUrl: 'https://api.salla.dev/exchange-authority/v1/introspect',
      origin: 'https://s.salla.sa',
    });
    expect(errorOf({ ...on, SALLA_APP_ID: '12; DROP' })).toMatch(/SALLA_APP_ID/);
    expect(errorOf({ ...on, SALLA_APP_ID: '1', SALLA_DASHBOARD_ORIGIN: 'https://s.salla.sa/x' })).toMatch(
      /SALLA_DASHBOARD_ORIGIN/,
    );
    expect(errorOf({ SALLA_WEBHOOK_SECRET: on.SALLA_WEBHOOK_SECRET })).toMatch(/all three|together/);
    expect(errorOf({ SALLA_CLIENT_ID: 'c', SALLA_CLIENT_SECRET: 's' })).toMatch(/SALLA_WEBHOOK_SECRET/);
    const short = errorOf({ ...on, SALLA_WEBHOOK_SECRET: 'tooshort' });
    expect(short).toMatch(/SALLA_WEBHOOK_SECRET/);
    expect(short).not.toContain('tooshort');
  });

  it('accepts proxy addresses and CIDRs but refuses TRUST_PROXY=true', () => {
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1' }).trustProxy).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
    ]);
    expect(errorOf({ TRUST_PROXY: 'true' })).toMatch(/TRUST_PROXY/);
    expect(errorOf({ TRUST_PROXY: '10.0.0.0/33' })).toMatch(/TRUST_PROXY/);
  });

  it('reads the private hosts feeds may be pulled from as URL hosts, and refuses anything else', () => {
    expect(loadConfig({}).feeds.allowPrivateHosts).toEqual([]);
    expect(loadConfig({ FEED_ALLOW_PRIVATE_HOSTS: ' Feeds.Internal, 127.0.0.1,::1,[fd00::12],' }).feeds).toEqual({
      allowPrivateHosts: ['feeds.internal', '127.0.0.1', '[::1]', '[fd00::12]'],
    });
    for (const bad of ['http://feeds.internal', 'feeds.internal:8080', '10.0.0.0/8', 'feeds.internal/x', 'a b']) {
      expect(errorOf({ FEED_ALLOW_PRIVATE_HOSTS: bad })).toMatch(
        /^Invalid configuration: FEED_ALLOW_PRIVATE_HOSTS entry/,
      );
    }
  });

  it('decodes a 32-byte lead encryption key from hex or base64', () => {
    const hex = 'ab'.repeat(32);
    expect(loadConfig({ LEAD_ENCRYPTION_KEY: hex }).leadEncryptionKey?.length).toBe(32);
    const b64 = Buffer.alloc(32, 7).toString('base64');
    expect(loadConfig({ LEAD_ENCRYPTION_KEY: b64 }).leadEncryptionKey?.equals(Buffer.alloc(32, 7))).toBe(true);
  });
});

describe('.env.example', () => {
  const text = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');
  it('lists every variable the service reads, and no other', () => {
    const listed = [...text.matchAll(/^#?\s?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
    expect(new Set(listed)).toEqual(new Set(Object.keys(EnvSchema.properties)));
  });
  it('its uncommented values are a valid configuration', () => {
    const env = Object.fromEntries([...text.matchAll(/^([A-Z][A-Z0-9_]+)=(.*)$/gm)].map((m) => [m[1], m[2]]));
    expect(() => loadConfig(env)).not.toThrow();
  });
});
