import { createHash, createHmac, generateKeyPairSync, sign } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  authorizeUrl,
  CONNECT_TTL_MS,
  CONNECTION_ROUTE,
  confirmedKey,
  connectionMessage,
  connectionUrl,
  isInstallationKey,
  isProof,
  isWooTopic,
  pluginPage,
  proofValid,
  readConnect,
  signConnect,
  signWoo,
  tokenHash,
  wooAdminUrl,
  wooId,
  wooKeys,
  wooOrder,
  wooSignatureValid,
  wooStoreId,
  wooStoreUrl,
  wooWebhookProduct,
} from '../platforms/woocommerce.ts';

/** What the service reads from WooCommerce and its plugin (platforms/woocommerce.ts), rule by rule. */
const KEY = Buffer.alloc(32, 7);
const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);
/** A plugin's installation key pair, and its public half as the plugin shows it. */
const installation = () => {
  const pair = generateKeyPairSync('ed25519');
  return { ...pair, key: pair.publicKey.export({ format: 'jwk' }).x as string };
};
const INSTALLATION = installation();
const token = (over: Partial<Parameters<typeof signConnect>[0]> = {}) =>
  signConnect(
    {
      store: 'https://attar.example',
      proof: 'a'.repeat(64),
      email: 'o@attar.example',
      admin: null,
      key: INSTALLATION.key,
      exp: NOW + 60_000,
      ...over,
    },
    KEY,
  );

describe("a store's address and id", () => {
  it('is an https home page without credentials, query or fragment; http only for the private hosts named', () => {
    expect(wooStoreUrl('https://Attar.example/')).toBe('https://attar.example');
    expect(wooStoreUrl('https://attar.example/shop/')).toBe('https://attar.example/shop');
    expect(wooStoreUrl('http://127.0.0.1:8080/wp', ['127.0.0.1'])).toBe('http://127.0.0.1:8080/wp');
    for (const bad of [
      'http://attar.example',
      'http://127.0.0.1/wp',
      'https://u:p@attar.example',
      'https://attar.example/?p=1',
      'https://attar.example/#x',
      'ftp://attar.example',
      'attar.example',
      `https://${'a'.repeat(300)}.example`,
      null,
    ]) {
      expect(wooStoreUrl(bad), String(bad)).toBeNull();
    }
  });

  it('the id is readable, a slug, and never the same for two addresses (a readable twin is another store)', () => {
    expect(wooStoreId('https://attar.example/shop')).toMatch(/^attar-example-shop-[0-9a-f]{32}$/);
    expect(wooStoreId('https://a.example/b')).not.toBe(wooStoreId('https://a-example.b'));
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: false, withFragments: false }), fc.webUrl(), (a, b) => {
        const id = wooStoreId(a);
        expect(id).toMatch(/^[a-z0-9][a-z0-9-]{0,59}$/);
        if (a !== b) expect(wooStoreId(b) === id).toBe(false);
      }),
    );
  });

  it("the plugin's admin page must be an admin.php on the store's own origin", () => {
    expect(wooAdminUrl('https://attar.example/wp/wp-admin/admin.php', 'https://attar.example')).toBe(
      'https://attar.example/wp/wp-admin/admin.php',
    );
    for (const bad of [
      'https://evil.example/wp-admin/admin.php',
      'https://attar.example/wp-admin/options.php',
      'https://attar.example/wp-admin/admin.php?page=x',
      'javascript:alert(1)//admin.php',
      '',
    ]) {
      expect(wooAdminUrl(bad, 'https://attar.example'), bad).toBeNull();
    }
  });

  it('the key screen asks read-only keys, the token as user_id; the admin comes back to the plugin page', () => {
    const u = new URL(
      authorizeUrl('https://attar.example/shop', {
        token: 't.s',
        returnUrl: 'https://svc/r',
        callbackUrl: 'https://svc/k',
      }),
    );
    expect(`${u.origin}${u.pathname}`).toBe('https://attar.example/shop/');
    expect(Object.fromEntries(u.searchParams)).toEqual({
      'wc-auth-version': '1',
      'wc-auth-route': 'authorize',
      app_name: 'Sillage',
      scope: 'read',
      user_id: 't.s',
      return_url: 'https://svc/r',
      callback_url: 'https://svc/k',
    });
    const back = new URL(pluginPage({ store: 'https://attar.example', admin: null }, 't.s', true));
    expect(`${back.origin}${back.pathname}`).toBe('https://attar.example/wp-admin/admin.php');
    expect(Object.fromEntries(back.searchParams)).toEqual({ page: 'sillage', sillage_connect: 't.s', success: '1' });
    const folder = new URL(
      pluginPage({ store: 'https://attar.example', admin: 'https://attar.example/wp/wp-admin/admin.php' }, 't', false),
    );
    expect(folder.pathname).toBe('/wp/wp-admin/admin.php');
    expect(folder.searchParams.get('success')).toBe('0');
  });
});

describe('connect tokens and proofs', () => {
  it('read back what was signed, until they end', () => {
    const t = token({ admin: 'https://attar.example/wp-admin/admin.php' });
    expect(readConnect(t, KEY, NOW)).toEqual({
      store: 'https://attar.example',
      proof: 'a'.repeat(64),
      email: 'o@attar.example',
      admin: 'https://attar.example/wp-admin/admin.php',
      key: INSTALLATION.key,
      exp: NOW + 60_000,
    });
    expect(readConnect(t, KEY, NOW + 60_001)).toBeNull();
    expect(readConnect(t, Buffer.alloc(32, 8), NOW)).toBeNull();
  });

  it('a token changed anywhere, or not a token, is nobody’s', () => {
    const t = token();
    const [payload, sig] = t.split('.') as [string, string];
    const other = Buffer.from(
      JSON.stringify({ s: 'https://evil.example', p: 'a'.repeat(64), x: NOW + 60_000 }),
    ).toString('base64url');
    for (const bad of [
      `${other}.${sig}`,
      `${payload}.${sig.slice(1)}`,
      `${payload}.`,
      payload,
      `${t}.x`,
      '',
      'x'.repeat(3000),
      42,
    ]) {
      expect(readConnect(bad, KEY, NOW)).toBeNull();
    }
    // a payload signed right but not a token's shape
    const odd = Buffer.from('"just text"').toString('base64url');
    expect(readConnect(`${odd}.${createHmac('sha256', KEY).update(odd).digest('base64url')}`, KEY, NOW)).toBeNull();
  });

  it('the proof is the hex SHA-256 of the secret only the plugin holds', () => {
    const secret = 'b'.repeat(64);
    const proof = createHash('sha256').update(secret).digest('hex');
    expect(isProof(proof)).toBe(true);
    expect(proofValid(secret, proof)).toBe(true);
    expect(proofValid(`${secret}x`, proof)).toBe(false);
    expect(proofValid('', proof)).toBe(false);
    expect(proofValid(secret, proof.toUpperCase())).toBe(false);
    expect(proofValid(undefined, proof)).toBe(false);
    expect(isProof('g'.repeat(64))).toBe(false);
  });
});

describe("the store's confirmation of a connection", () => {
  const proof = 'c'.repeat(64);
  const challenge = 'Q'.repeat(43);
  const answer = (o: { proof?: string; challenge?: string; pair?: ReturnType<typeof installation>; key?: string }) => {
    const pair = o.pair ?? INSTALLATION;
    return JSON.stringify({
      proof: o.proof ?? proof,
      key: o.key ?? pair.key,
      signature: sign(null, connectionMessage(o.proof ?? proof, o.challenge ?? challenge), pair.privateKey).toString(
        'base64url',
      ),
    });
  };

  it("is asked of the plugin's REST route on the store's own address, in its query form", () => {
    const u = new URL(connectionUrl('https://attar.example/shop', proof, challenge));
    expect(`${u.origin}${u.pathname}`).toBe('https://attar.example/shop/');
    expect(Object.fromEntries(u.searchParams)).toEqual({ rest_route: CONNECTION_ROUTE, proof, challenge });
    expect(CONNECTION_ROUTE).toBe('/sillage/v1/connection');
    expect(connectionMessage(proof, challenge).toString()).toBe(
      `sillage-woocommerce-connection\n${proof}\n${challenge}`,
    );
  });

  it('is the installation key whose Ed25519 signature of this proof and challenge is good; nothing else is', () => {
    expect(confirmedKey(answer({}), proof, challenge)).toBe(INSTALLATION.key);
    const other = installation();
    for (const [what, body] of [
      ['another proof', answer({ proof: 'd'.repeat(64) })],
      ['another challenge', answer({ challenge: 'R'.repeat(43) })],
      ['signed with another key', answer({ key: other.key })],
      ['another key named', answer({ pair: other, key: INSTALLATION.key })],
      ['not JSON', 'Sillage'],
      ['a list', '[]'],
      ['no signature', JSON.stringify({ proof, key: INSTALLATION.key })],
      ['a short signature', JSON.stringify({ proof, key: INSTALLATION.key, signature: 'A'.repeat(85) })],
      ['a key of another length', JSON.stringify({ ...JSON.parse(answer({})), key: `${INSTALLATION.key}A` })],
      ['too long', JSON.stringify({ ...JSON.parse(answer({})), pad: 'x'.repeat(4096) })],
      ['a signature that is no text', JSON.stringify({ ...JSON.parse(answer({})), signature: 5 })],
    ] as const) {
      expect(confirmedKey(body, proof, challenge), what).toBeNull();
    }
    // a confirmation of 4 KB is read, one byte more is not
    const padded = (n: number) => {
      const a = JSON.parse(answer({}));
      const base = JSON.stringify({ ...a, pad: '' });
      return JSON.stringify({ ...a, pad: 'x'.repeat(n - base.length) });
    };
    expect(padded(4096)).toHaveLength(4096);
    expect(confirmedKey(padded(4096), proof, challenge)).toBe(INSTALLATION.key);
    expect(confirmedKey(padded(4097), proof, challenge)).toBeNull();
    // a signature of the right length that is not one
    expect(
      confirmedKey(JSON.stringify({ ...JSON.parse(answer({})), signature: 'A'.repeat(86) }), proof, challenge),
    ).toBeNull();
    // 32 bytes that are no Ed25519 point
    expect(
      confirmedKey(JSON.stringify({ ...JSON.parse(answer({})), key: '_'.repeat(43) }), proof, challenge),
    ).toBeNull();
    expect(isInstallationKey(INSTALLATION.key)).toBe(true);
    expect(isInstallationKey(` ${INSTALLATION.key.slice(1)}`)).toBe(false);
    expect(isInstallationKey(42)).toBe(false);
  });

  it("an installation's id is the address's and its key's: another installation at the address is another store", () => {
    const a = wooStoreId('https://attar.example', INSTALLATION.key);
    expect(a).toMatch(/^attar-example-[0-9a-f]{32}$/);
    expect(a).toBe(
      `attar-example-${createHash('sha256').update(`https://attar.example\n${INSTALLATION.key}`).digest('hex').slice(0, 32)}`,
    );
    expect(wooStoreId('https://attar.example', installation().key)).not.toBe(a);
    expect(wooStoreId('https://attar.example')).toBe(
      `attar-example-${createHash('sha256').update('https://attar.example').digest('hex').slice(0, 32)}`,
    );
  });
});

describe("WooCommerce's posts", () => {
  it('keys are a consumer key and secret, read-only or more, with the user_id given', () => {
    const body = { key_id: 3, user_id: 't.s', consumer_key: 'ck_1', consumer_secret: 'cs_2', key_permissions: 'read' };
    expect(wooKeys(body)).toEqual({
      userId: 't.s',
      tokens: { accessToken: 'ck_1', authorization: 'cs_2', refreshToken: null, expiresAt: null, scope: 'read' },
    });
    expect(wooKeys({ ...body, user_id: 5 })?.userId).toBe('5');
    for (const bad of [
      { consumer_key: 'x_1' },
      { consumer_secret: 'x_2' },
      { key_permissions: 'admin' },
      { user_id: null },
      { consumer_key: `ck_${'a'.repeat(300)}` },
    ]) {
      expect(wooKeys({ ...body, ...bad }), JSON.stringify(bad)).toBeNull();
    }
  });

  it("a webhook is the store's only with the base64 HMAC of its exact bytes and the store's secret", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.string({ minLength: 1, maxLength: 40 }), (bytes, secret) => {
        const raw = Buffer.from(bytes);
        const sig = signWoo(raw, secret);
        expect(wooSignatureValid(raw, sig, secret)).toBe(true);
        expect(wooSignatureValid(raw, sig, `${secret}x`)).toBe(false);
        expect(wooSignatureValid(Buffer.concat([raw, Buffer.from('x')]), sig, secret)).toBe(false);
      }),
    );
    expect(wooSignatureValid(Buffer.from('{}'), signWoo('{}', 's'), null)).toBe(false);
    expect(wooSignatureValid(undefined, 'abc=', 's')).toBe(false);
    expect(wooSignatureValid(Buffer.from('{}'), 'not base64!', 's')).toBe(false);
  });

  it('knows the topics the plugin registers and its disconnection, nothing else', () => {
    for (const t of [
      'product.created',
      'product.updated',
      'product.deleted',
      'product.restored',
      'order.created',
      'order.updated',
      'sillage.disconnected',
    ]) {
      expect(isWooTopic(t)).toBe(true);
    }
    for (const t of ['order.deleted', 'coupon.created', 'action.x', '', null]) expect(isWooTopic(t)).toBe(false);
  });

  it('a product webhook names the product, a variation its parent', () => {
    expect(wooWebhookProduct({ id: 12 })).toBe('12');
    expect(wooWebhookProduct({ id: 13, parent_id: 12 })).toBe('12');
    expect(wooWebhookProduct({ id: 13, parent_id: 0 })).toBe('13');
    expect(wooWebhookProduct({})).toBeNull();
    expect(wooId('007')).toBeNull();
    expect(wooId(1.5)).toBeNull();
  });

  it('an order is a purchase once it is paid or on hold, its lines at their totals', () => {
    const order = {
      id: 727,
      status: 'processing',
      currency: 'sar',
      total: '397.50',
      date_created_gmt: '2026-11-27T09:00:00',
      line_items: [
        { product_id: 101, quantity: 2, total: '300.00', price: 150 },
        { product_id: 102, quantity: 1, total: null, price: 97.5 },
        { product_id: 0, quantity: 1, total: '1' },
        { product_id: 103, quantity: 0, total: '1' },
      ],
    };
    expect(wooOrder(order, new Date(NOW))).toEqual({
      orderId: '727',
      total: 397.5,
      currency: 'SAR',
      items: [
        { merchant_product_id: '101', quantity: 2, price: 150 },
        { merchant_product_id: '102', quantity: 1, price: 97.5 },
      ],
      occurredAt: new Date('2026-11-27T09:00:00Z'),
    });
    for (const status of ['completed', 'on-hold']) expect(wooOrder({ ...order, status }, new Date(NOW))).not.toBeNull();
    for (const status of ['pending', 'failed', 'cancelled', 'refunded', 'checkout-draft', undefined]) {
      expect(wooOrder({ ...order, status }, new Date(NOW)), String(status)).toBeNull();
    }
    expect(wooOrder({ ...order, total: 'x' }, new Date(NOW))).toBeNull();
    expect(wooOrder({ ...order, date_created_gmt: 'soon' }, new Date(NOW))?.occurredAt).toEqual(new Date(NOW));
    // a date no order has is not the order's: before 2000, after the day it came, or not a date at all
    for (const date of [
      '1999-12-31T23:59:59',
      '0000-01-01T00:00:00',
      '+275760-09-13T00:00:00',
      '2026-11-29T12:00:00',
    ]) {
      expect(wooOrder({ ...order, date_created_gmt: date }, new Date(NOW))?.occurredAt, date).toEqual(new Date(NOW));
    }
    expect(wooOrder({ ...order, date_created_gmt: '2026-11-28 11:00:00' }, new Date(NOW))?.occurredAt).toEqual(
      new Date('2026-11-28T11:00:00Z'),
    );
    const many = {
      ...order,
      line_items: Array.from({ length: 500 }, (_, i) => ({ product_id: i + 1, quantity: 1, total: '1' })),
    };
    expect(wooOrder(many, new Date(NOW))?.items).toHaveLength(200);
  });
});

describe('WooCommerce readings, edge by edge', () => {
  it('a connection lasts 30 minutes; a token keeps its hash', () => {
    expect(CONNECT_TTL_MS).toBe(30 * 60_000);
    expect(tokenHash('t.s')).toBe(createHash('sha256').update('t.s').digest('hex'));
  });

  it('addresses: 300 characters at most, spaces around them dropped, any path slash at the end dropped', () => {
    expect(wooStoreUrl(' https://attar.example/shop// ')).toBe('https://attar.example/shop');
    expect(wooStoreUrl(`https://attar.example/${'a'.repeat(278)}`)).toHaveLength(300);
    expect(wooStoreUrl(`https://attar.example/${'a'.repeat(279)}`)).toBeNull();
    expect(wooStoreUrl('https://user@attar.example')).toBeNull();
    expect(wooStoreUrl('https://:pw@attar.example')).toBeNull();
    expect(wooStoreUrl('http://attar.example', ['127.0.0.1'])).toBeNull();
    expect(wooStoreUrl(5)).toBeNull();
    expect(wooAdminUrl(`https://attar.example/${'a'.repeat(280)}/admin.php`, 'https://attar.example')).toBeNull();
    expect(wooAdminUrl(5, 'https://attar.example')).toBeNull();
    expect(wooAdminUrl('https://attar.example/wp-admin/admin.php#x', 'https://attar.example')).toBeNull();
  });

  it("an id's readable part: runs of other characters one dash, none at either end", () => {
    expect(wooStoreId('https://--attar--.example/_shop_/')).toMatch(/^attar-example-shop-[0-9a-f]{32}$/);
    expect(wooStoreId('https://attar.example/a...b')).toMatch(/^attar-example-a-b-/);
    expect(wooStoreId(`https://attar.example/${'a'.repeat(12)}-b`)).toMatch(
      /^attar-example-aaaaaaaaaaaa-[0-9a-f]{32}$/,
    );
    expect(wooStoreId('https://xn--mgbh0fb.example/')).toMatch(/^xn-mgbh0fb-example-/);
  });

  it('a token: at most 2,000 characters, every field of its payload checked, ended at its time', () => {
    const signed = (payload: object) => {
      const p = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return `${p}.${createHmac('sha256', KEY).update(p).digest('base64url')}`;
    };
    const ok = { s: 'https://attar.example', p: 'a'.repeat(64), k: INSTALLATION.key, x: NOW + 1 };
    expect(readConnect(signed(ok), KEY, NOW)).toMatchObject({
      store: 'https://attar.example',
      email: null,
      admin: null,
    });
    expect(readConnect(signed({ ...ok, e: 5, a: 6 }), KEY, NOW)).toMatchObject({ email: null, admin: null });
    for (const bad of [
      { ...ok, s: 5 },
      { ...ok, p: 5 },
      { ...ok, x: '9' },
      { ...ok, x: NOW - 1 },
      { ...ok, x: String(NOW + 60_000) },
      { ...ok, x: undefined },
      { ...ok, k: undefined },
      { ...ok, k: `${INSTALLATION.key}A` },
    ]) {
      expect(readConnect(signed(bad), KEY, NOW), JSON.stringify(bad)).toBeNull();
    }
    expect(readConnect(signed({ ...ok, x: NOW }), KEY, NOW)).not.toBeNull();
    const long = signed({ ...ok, s: `https://attar.example/${'a'.repeat(1500)}` });
    expect(long.length).toBeGreaterThan(2000);
    expect(readConnect(long, KEY, NOW)).toBeNull();
    expect(isProof(` ${'a'.repeat(64)}`)).toBe(false);
    expect(isProof(`${'a'.repeat(64)}0`)).toBe(false);
    expect(isProof(5)).toBe(false);
    expect(proofValid('s'.repeat(201), createHash('sha256').update('s'.repeat(201)).digest('hex'))).toBe(false);
    expect(proofValid('s'.repeat(200), createHash('sha256').update('s'.repeat(200)).digest('hex'))).toBe(true);
    expect(proofValid('s', 'not a proof')).toBe(false);
  });

  it('keys: both needed, 200 characters at most, permissions named or read', () => {
    const body = { user_id: 't', consumer_key: 'ck_1', consumer_secret: 'cs_2' };
    expect(wooKeys(body)?.tokens.scope).toBe('read');
    for (const p of ['write', 'read_write']) expect(wooKeys({ ...body, key_permissions: p })?.tokens.scope).toBe(p);
    expect(wooKeys({ ...body, consumer_key: undefined })).toBeNull();
    expect(wooKeys({ ...body, consumer_secret: undefined })).toBeNull();
    expect(wooKeys({ ...body, consumer_key: `ck_${'a'.repeat(197)}` })).not.toBeNull();
    expect(wooKeys({ ...body, consumer_secret: `cs_${'a'.repeat(198)}` })).toBeNull();
    expect(wooKeys({ ...body, key_permissions: '' })).toBeNull();
    expect(wooKeys({ ...body, key_permissions: 5 })?.tokens.scope).toBe('read');
  });

  it('signatures of 100 characters at most, in base64 only; ids of digits, trimmed', () => {
    const raw = Buffer.from('{}');
    const sig = signWoo(raw, 's');
    expect(wooSignatureValid(raw, ` ${sig}`, 's')).toBe(false);
    expect(wooSignatureValid(raw, `${sig}x`, 's')).toBe(false);
    expect(wooSignatureValid(raw, `${sig.replace(/=+$/, '')}===`, 's')).toBe(false);
    expect(wooSignatureValid(raw, 'A'.repeat(101), 's')).toBe(false);
    expect(wooSignatureValid(raw, 5, 's')).toBe(false);
    expect(wooSignatureValid(raw, 'AAAA', 's')).toBe(false);
    expect(wooId(' 12 ')).toBe('12');
    expect(wooId('1'.repeat(19))).toBe('1'.repeat(19));
    expect(wooId('1'.repeat(20))).toBeNull();
    expect(wooId('1a')).toBeNull();
    expect(wooId(0)).toBeNull();
    expect(wooId(Number.MAX_SAFE_INTEGER + 2)).toBeNull();
    expect(isWooTopic(5)).toBe(false);
  });

  it('orders: an id and a status needed, quantities whole numbers, a line without its total at its price', () => {
    const base = { id: 9, status: 'completed', total: '10', line_items: [] };
    expect(wooOrder({ ...base, id: null }, new Date(NOW))).toBeNull();
    expect(wooOrder({ ...base, status: 5 }, new Date(NOW))).toBeNull();
    const items = wooOrder(
      {
        ...base,
        line_items: [
          { product_id: 1, quantity: 1.5, total: '3' },
          { product_id: 2, quantity: '2', total: '4' },
          { product_id: 3, quantity: 2, price: 'x' },
        ],
      },
      new Date(NOW),
    )?.items;
    expect(items).toEqual([
      { merchant_product_id: '1', quantity: 1, price: 3 },
      { merchant_product_id: '2', quantity: 1, price: 4 },
      { merchant_product_id: '3', quantity: 2, price: 0 },
    ]);
    expect(wooOrder({ ...base, line_items: 'x' }, new Date(NOW))?.items).toEqual([]);
    expect(wooOrder({ ...base, date_created_gmt: '2000-01-01T00:00:00' }, new Date(NOW))?.occurredAt).toEqual(
      new Date('2000-01-01T00:00:00Z'),
    );
    expect(wooOrder({ ...base, date_created_gmt: '2026-11-28T12:00:00' }, new Date(NOW))?.occurredAt).toEqual(
      new Date('2026-11-28T12:00:00Z'),
    );
    for (const date of ['x2026-11-27T09:00:00', '2026-11-27T09:00:00Z', 5]) {
      expect(wooOrder({ ...base, date_created_gmt: date }, new Date(NOW))?.occurredAt, String(date)).toEqual(
        new Date(NOW),
      );
    }
  });
});
