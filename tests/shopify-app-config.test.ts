import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { shopifyAppToml } from '../cli/shopify-app-config.ts';
import { SHOPIFY_API_VERSION, SHOPIFY_COMPLIANCE_TOPICS, SHOPIFY_SCOPES } from '../platforms/shopify.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BASE = 'https://sillage.example';

/** `npx tsx cli/shopify-app-config.ts` with `env` in place of the service's variables */
async function cli(env: Record<string, string | undefined>, ...args: string[]) {
  const clean = { ...process.env };
  delete clean.PUBLIC_BASE_URL;
  delete clean.SHOPIFY_CLIENT_ID;
  for (const [name, value] of Object.entries(env)) if (value !== undefined) clean[name] = value;
  try {
    const { stdout, stderr } = await promisify(execFile)('npx', ['tsx', 'cli/shopify-app-config.ts', ...args], {
      cwd: ROOT,
      env: clean,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('the Shopify app configuration (shopify.app.toml)', () => {
  const toml = shopifyAppToml({ baseUrl: `${BASE}/`, clientId: 'abc123def456' });

  it('names the app, its client id and its address on the service', () => {
    expect(toml).toMatch(/^client_id = "abc123def456"$/m);
    expect(toml).toMatch(/^name = "Sillage"$/m);
    expect(toml).toMatch(/^application_url = "https:\/\/sillage\.example\/console\/shopify\/install"$/m);
    expect(toml).toMatch(/^embedded = false$/m);
  });

  it('asks for every scope the service uses', () => {
    expect(toml).toMatch(
      /^\[access_scopes\]\nscopes = "read_products,read_orders,write_pixels,read_customer_events"$/m,
    );
    for (const scope of SHOPIFY_SCOPES) expect(toml).toContain(scope);
  });

  it("redirects OAuth to the service's callback", () => {
    expect(toml).toMatch(/^\[auth\]\nredirect_urls = \["https:\/\/sillage\.example\/console\/shopify\/callback"\]$/m);
  });

  it("sends the compliance webhooks to the service's webhook address, in the service's API version", () => {
    expect(toml).toContain(`[webhooks]\napi_version = "${SHOPIFY_API_VERSION}"`);
    expect(toml).toContain(
      '[[webhooks.subscriptions]]\ncompliance_topics = ["customers/data_request", "customers/redact", "shop/redact"]\n' +
        'uri = "https://sillage.example/api/platforms/shopify/webhooks"\n',
    );
    for (const topic of SHOPIFY_COMPLIANCE_TOPICS) expect(toml).toContain(`"${topic}"`);
  });

  it('drops the trailing slashes of the base address, and keeps its path', () => {
    expect(toml).not.toContain('example//');
    const under = shopifyAppToml({ baseUrl: 'https://host.example/sillage///', clientId: 'x' });
    expect(under).toContain('application_url = "https://host.example/sillage/console/shopify/install"');
    expect(under).toContain('uri = "https://host.example/sillage/api/platforms/shopify/webhooks"');
  });

  it('refuses a base address Shopify could not call, and an empty client id', () => {
    expect(() => shopifyAppToml({ baseUrl: 'http://sillage.example', clientId: 'x' })).toThrow(/https/);
    expect(() => shopifyAppToml({ baseUrl: 'sillage.example', clientId: 'x' })).toThrow(/PUBLIC_BASE_URL/);
    expect(() => shopifyAppToml({ baseUrl: BASE, clientId: ' ' })).toThrow(/SHOPIFY_CLIENT_ID/);
  });

  it('keeps a quote in a value from ending its string', () => {
    const text = shopifyAppToml({ baseUrl: BASE, clientId: 'a"b\\c' });
    expect(text).toContain('client_id = "a\\"b\\\\c"');
  });
});

describe('npm run shopify:config', () => {
  it('prints the configuration from PUBLIC_BASE_URL and SHOPIFY_CLIENT_ID', async () => {
    const run = await cli({ PUBLIC_BASE_URL: `${BASE}/`, SHOPIFY_CLIENT_ID: 'abc123def456' });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(shopifyAppToml({ baseUrl: BASE, clientId: 'abc123def456' }));
  });

  it('exits with 1 naming the variable that is missing', async () => {
    const noBase = await cli({ SHOPIFY_CLIENT_ID: 'abc123def456' });
    expect(noBase.code).toBe(1);
    expect(noBase.stderr).toMatch(/PUBLIC_BASE_URL is required/);
    expect(noBase.stdout).toBe('');

    const noClient = await cli({ PUBLIC_BASE_URL: BASE, SHOPIFY_CLIENT_ID: '' });
    expect(noClient.code).toBe(1);
    expect(noClient.stderr).toMatch(/SHOPIFY_CLIENT_ID is required/);

    const neither = await cli({});
    expect(neither.code).toBe(1);
    expect(neither.stderr).toMatch(/PUBLIC_BASE_URL and SHOPIFY_CLIENT_ID are required/);
  });

  it('exits with 1 for a base address that is not https', async () => {
    const run = await cli({ PUBLIC_BASE_URL: 'http://sillage.example', SHOPIFY_CLIENT_ID: 'abc' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/PUBLIC_BASE_URL must be an https address/);
  });
});
