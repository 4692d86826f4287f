/**
 * The WooCommerce plugin (apps/woocommerce/sillage), in PHP: every PHP file passes `php -l`; the
 * plugin's own runner passes (apps/woocommerce/tests/run.php: the pure core, checks on the
 * sources and translations, then the WordPress side against stand-ins); the signature PHP puts
 * on its message to the service is the base64 HMAC-SHA256 Node computes, as WooCommerce signs
 * `X-WC-Webhook-Signature`; the store's confirmation of a connection (Ed25519, with sodium) is
 * one the service accepts, for that proof and challenge only; and the purchase the thank-you page queues, run as the page runs it,
 * is one the service's own event validation accepts. Skipped, saying why, where `php` is not on
 * PATH (apt-get install -y php-cli; .ci/run installs it).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { validateEvents } from '../events/validate.ts';
import { confirmedKey, connectionUrl } from '../platforms/woocommerce.ts';

const APP = join(import.meta.dirname, '..', 'apps', 'woocommerce');
const CORE = join(APP, 'sillage', 'includes', 'class-sillage-core.php');
const PHP = spawnSync('php', ['-v'], { encoding: 'utf8' }).status === 0;
const SKIPPED = PHP ? '' : ' (skipped: php is not on PATH; apt-get install -y php-cli)';
if (!PHP) process.stdout.write(`\ntests/woocommerce-plugin.test.ts${SKIPPED}\n`);

/** Runs PHP code with the core loaded; `$argv[1]`, `$argv[2]`… are the arguments. */
const php = (code: string, ...args: string[]) =>
  execFileSync('php', ['-r', `define('ABSPATH', '/'); require ${JSON.stringify(CORE)}; ${code}`, '--', ...args], {
    encoding: 'utf8',
  });

const hmac = (body: string, secret: string) => createHmac('sha256', secret).update(body).digest('base64');

type Payload = { order_id: string; items: unknown[] } & Record<string, unknown>;

/** The thank-you script for an order, run as a page runs it: what it queued for the widget. */
function queued(order: unknown): unknown[] {
  const script = php(
    '$p = Sillage_Core::purchase_payload(json_decode($argv[1], true)); echo null === $p ? "" : Sillage_Core::purchase_script($p);',
    JSON.stringify(order),
  );
  if (script === '') return [];
  const page: { window: { Sillage?: { q?: unknown[] } } } = { window: {} };
  runInNewContext(script, page);
  return page.window.Sillage?.q ?? [];
}

const order = (items: unknown[], over: Record<string, unknown> = {}) => ({
  id: 4321,
  total: '1035.00',
  currency: 'SAR',
  items,
  ...over,
});

describe.skipIf(!PHP)(`the WooCommerce plugin in PHP${SKIPPED}`, () => {
  it('every PHP file passes php -l', () => {
    const files = (readdirSync(APP, { recursive: true }) as string[]).filter((f) => f.endsWith('.php')).sort();
    expect(files).toContain(join('sillage', 'sillage.php'));
    expect(files.length).toBeGreaterThan(10);
    const failing = files
      .map((f) => ({ f, r: spawnSync('php', ['-l', join(APP, f)], { encoding: 'utf8' }) }))
      .filter(({ r }) => r.status !== 0)
      .map(({ f, r }) => `${f}: ${r.stdout}${r.stderr}`);
    expect(failing).toEqual([]);
  });

  it("the plugin's own tests pass (apps/woocommerce/tests/run.php)", () => {
    const r = spawnSync('php', [join(APP, 'tests', 'run.php')], { encoding: 'utf8' });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    expect(r.stdout).not.toContain('not ok');
    expect(r.stdout).toContain('all passed');
  });

  it('the signature PHP computes is the base64 HMAC-SHA256 Node computes', () => {
    const cases: [string, string][] = [
      ['{"store_id":"0b7c5f4e-2222-4a6b-9c0d-00000000abcd","reason":"disconnected"}', 'whsec_4mZ9s-Q2_xv8Lk3Pq0rT7yUw'],
      ['{"id":501,"name":"لطافة خمرة أو دو بارفان","price":"250.00"}', 'a+b/c=d.e~f-g_h0123456789'],
      ['', 'k'],
      ['line one\nline two\t"quoted"', 'ñ-ü-ظ secret'],
    ];
    for (const [body, secret] of cases) {
      expect(php('echo Sillage_Core::signature($argv[1], $argv[2]);', body, secret)).toBe(hmac(body, secret));
    }
    // the message the plugin sends when the store leaves: its body and the signature of that body
    const headers = JSON.parse(
      php(
        'echo json_encode(Sillage_Core::disconnect_headers(Sillage_Core::disconnect_body($argv[1], $argv[2]), $argv[3], "https://attar.example/"));',
        'store-1',
        'deactivated',
        'whsec_x',
      ),
    );
    expect(headers).toEqual({
      'Content-Type': 'application/json',
      'X-WC-Webhook-Topic': 'sillage.disconnected',
      'X-WC-Webhook-Signature': hmac('{"store_id":"store-1","reason":"deactivated"}', 'whsec_x'),
      'X-WC-Webhook-Source': 'https://attar.example/',
    });
  });

  it("the store's confirmation of a connection, signed by PHP with its installation key, is one the service accepts", () => {
    const secret = 'ab'.repeat(32);
    const proof = createHash('sha256').update(secret).digest('hex');
    const challenge = randomBytes(32).toString('base64url');
    const [body, key] = php(
      '$k = Sillage_Core::new_installation_key(); $a = Sillage_Core::connection_answer($argv[1], time(), time(), 3600, $argv[2], $argv[3], $k); echo json_encode($a), "\n", Sillage_Core::installation_public_key($k);',
      secret,
      proof,
      challenge,
    ).split('\n') as [string, string];
    expect(confirmedKey(body, proof, challenge)).toBe(key);
    expect(confirmedKey(body, proof, randomBytes(32).toString('base64url'))).toBeNull();
    expect(confirmedKey(body, 'cd'.repeat(32), challenge)).toBeNull();
    // the address the service asks is the REST route the plugin registers, in its query form
    const asked = new URL(connectionUrl('https://attar.example/shop', proof, challenge));
    expect(asked.searchParams.get('rest_route')).toBe(
      php(
        'echo Sillage_Core::REST_NAMESPACE === "sillage/v1" ? "/" . Sillage_Core::REST_NAMESPACE . Sillage_Core::REST_ROUTE : "";',
      ),
    );
  });

  it("the thank-you page queues a purchase the service's event validation accepts", () => {
    const orders = [
      order([
        { product_id: 310, quantity: 1, total: '250.00' },
        { product_id: 501, variation_id: 777, quantity: 2, total: '540.00' },
        { product_id: 88, quantity: 3, total: '100.000000000001' },
      ]),
      order(
        Array.from({ length: 250 }, (_, i) => ({ product_id: 1000 + i, quantity: 1, total: '10.00' })),
        { total: 2500, currency: 'kwd' },
      ),
      order([{ product_id: 7, quantity: 10_000, total: 999_999_999.99 }], { total: '999999999.99' }),
    ];
    for (const o of orders) {
      const q = queued(o);
      expect(q).toHaveLength(1);
      const [method, payload] = q[0] as [string, Payload];
      expect(method).toBe('trackPurchase');
      expect(payload.items.length).toBeLessThanOrEqual(200);
      const event = { type: 'purchase_completed', event_id: `purchase:${payload.order_id}`, ...payload };
      const result = validateEvents({ events: [event] }, new Date());
      expect(result.ok, JSON.stringify(result)).toBe(true);
    }
    const [, first] = queued(orders[0])[0] as [string, Payload];
    expect(first.items[1]).toEqual({ merchant_product_id: '501', quantity: 2, price: 270 });
    // an order with nothing to report queues nothing
    expect(queued(order([{ product_id: 0, quantity: 1, total: '1' }]))).toEqual([]);
    expect(queued(order([{ product_id: 1, quantity: 1, total: '1' }], { currency: '</script>' }))).toEqual([]);
  });
});
