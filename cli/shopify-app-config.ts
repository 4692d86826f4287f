/**
 * The Shopify app's configuration (apps/shopify/shopify.app.toml, which Shopify CLI deploys), from
 * the service's public address and the app's client id:
 *   PUBLIC_BASE_URL=https://… SHOPIFY_CLIENT_ID=… npm run shopify:config            prints it
 *   PUBLIC_BASE_URL=https://… SHOPIFY_CLIENT_ID=… npm run shopify:config -- --write  writes it
 * The scopes, the compliance topics and the API version are the service's own
 * (platforms/shopify.ts), so the app asks Shopify for what the service uses.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SHOPIFY_API_VERSION, SHOPIFY_COMPLIANCE_TOPICS, SHOPIFY_SCOPES } from '../platforms/shopify.ts';

export const SHOPIFY_APP_TOML = fileURLToPath(new URL('../apps/shopify/shopify.app.toml', import.meta.url));

/** A TOML basic string (JSON's escapes are TOML's). */
const str = (v: string) => JSON.stringify(v);
const list = (vs: readonly string[]) => `[${vs.map(str).join(', ')}]`;

/** The service's public address without its trailing slashes; an Error when it is not an https address. */
export function appBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error(`PUBLIC_BASE_URL is not an address: ${raw}`);
  }
  if (url.protocol !== 'https:') throw new Error(`PUBLIC_BASE_URL must be an https address (Shopify calls it): ${raw}`);
  if (url.search || url.hash || url.username || url.password) {
    throw new Error(`PUBLIC_BASE_URL must name no query, fragment or credentials: ${raw}`);
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** The text of shopify.app.toml for the service at `baseUrl` and the app `clientId`. */
export function shopifyAppToml({ baseUrl, clientId }: { baseUrl: string; clientId: string }): string {
  const base = appBaseUrl(baseUrl);
  const id = clientId.trim();
  if (!id) throw new Error('SHOPIFY_CLIENT_ID is empty');
  return `# Sillage's Shopify app, written by \`npm run shopify:config\` from PUBLIC_BASE_URL and SHOPIFY_CLIENT_ID.
# Deploy it with \`shopify app deploy\` from apps/shopify; write it again rather than editing it.
client_id = ${str(id)}
name = "Sillage"
application_url = ${str(`${base}/console/shopify/install`)}
embedded = false

[access_scopes]
scopes = ${str(SHOPIFY_SCOPES.join(','))}

[auth]
redirect_urls = ${list([`${base}/console/shopify/callback`])}

[webhooks]
api_version = ${str(SHOPIFY_API_VERSION)}

# The shop's own webhooks (products, orders, app/uninstalled) are subscribed by the service at install.
[[webhooks.subscriptions]]
compliance_topics = ${list(SHOPIFY_COMPLIANCE_TOPICS)}
uri = ${str(`${base}/api/platforms/shopify/webhooks`)}
`;
}

/** Prints the configuration, or writes it with `--write`; 1 when a variable is missing or wrong. */
export function main(argv: readonly string[], env: NodeJS.ProcessEnv): number {
  const missing = ['PUBLIC_BASE_URL', 'SHOPIFY_CLIENT_ID'].filter((name) => !env[name]?.trim());
  if (missing.length) {
    process.stderr.write(
      `error: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} required ` +
        "(PUBLIC_BASE_URL: the service's public https address; SHOPIFY_CLIENT_ID: the app's client id from the Dev Dashboard)\n",
    );
    return 1;
  }
  let text: string;
  try {
    text = shopifyAppToml({ baseUrl: env.PUBLIC_BASE_URL as string, clientId: env.SHOPIFY_CLIENT_ID as string });
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`);
    return 1;
  }
  if (argv.includes('--write')) {
    writeFileSync(SHOPIFY_APP_TOML, text);
    process.stdout.write(`${SHOPIFY_APP_TOML}: written; deploy it with \`shopify app deploy\` from apps/shopify\n`);
  } else {
    process.stdout.write(text);
  }
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2), process.env);
}
