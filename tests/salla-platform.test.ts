import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localTime, needsRefresh, REFRESH_AHEAD_MS } from '../platforms/common.ts';
import {
  INSTALL_EVENTS,
  sallaBrands,
  sallaDashboardTokenShaped,
  sallaEnvelope,
  sallaInstaller,
  sallaIntrospection,
  sallaOrder,
  sallaProductId,
  sallaSignatureValid,
  sallaStore,
  sallaTokens,
} from '../platforms/salla.ts';

/** What the service reads from Salla (platforms/salla.ts), rule by rule. */
const SECRET = 'salla-webhook-secret-0123456789';
const sign = (body: Buffer | string, secret = SECRET) => createHmac('sha256', secret).update(body).digest('hex');

describe("Salla's webhook signature", () => {
  it('holds for the HMAC of exactly these bytes with this secret, in any letter case', () => {
    const body = Buffer.from('{"event":"app.installed","merchant":1}');
    expect(sallaSignatureValid(body, sign(body), SECRET)).toBe(true);
    expect(sallaSignatureValid(body, sign(body).toUpperCase(), SECRET)).toBe(true);
    expect(sallaSignatureValid(body, ` ${sign(body)} `, SECRET)).toBe(true);
  });

  it('fails for another body, another secret, a missing, short, long or non-hex signature', () => {
    const body = Buffer.from('{"event":"app.installed","merchant":1}');
    const good = sign(body);
    for (const bad of [undefined, '', good.slice(0, 63), `${good}0`, `${good.slice(0, 63)}g`, sign(body, 'other')]) {
      expect(sallaSignatureValid(body, bad, SECRET), String(bad)).toBe(false);
    }
    expect(sallaSignatureValid(Buffer.from(`${body} `), good, SECRET)).toBe(false);
  });

  it('for any body and any secret: only its own HMAC passes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.string({ minLength: 1, maxLength: 40 }), (bytes, secret) => {
        const body = Buffer.from(bytes);
        expect(sallaSignatureValid(body, sign(body, secret), secret)).toBe(true);
        expect(sallaSignatureValid(body, sign(body, `${secret}x`), secret)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});

describe("Salla's envelope", () => {
  it('reads the event, the store id (number or digits) and the data', () => {
    expect(sallaEnvelope({ event: 'product.updated', merchant: 1305146709, data: { id: 1 } })).toEqual({
      event: 'product.updated',
      storeId: '1305146709',
      data: { id: 1 },
    });
    expect(sallaEnvelope({ event: 'app.installed', merchant: '42' })).toEqual({
      event: 'app.installed',
      storeId: '42',
      data: {},
    });
  });

  it('says why a body is not one', () => {
    for (const bad of [
      null,
      [],
      'x',
      { merchant: 1 },
      { event: '', merchant: 1 },
      { event: 'e' },
      { event: 'e', merchant: -1 },
    ]) {
      expect(typeof sallaEnvelope(bad), JSON.stringify(bad)).toBe('string');
    }
    expect(sallaEnvelope({ event: 'e', merchant: 'abc' })).toMatch(/merchant/);
    expect(sallaEnvelope({ event: 'e'.repeat(101), merchant: 1 })).toMatch(/event/);
  });
});

describe("Salla's tokens", () => {
  const now = Date.parse('2026-11-27T12:00:00Z');
  it('reads expires as a Unix time, or expires_in in seconds from now', () => {
    expect(sallaTokens({ access_token: 'a', refresh_token: 'r', expires: 1_800_000_000, scope: 's' }, now)).toEqual({
      accessToken: 'a',
      refreshToken: 'r',
      expiresAt: new Date(1_800_000_000_000),
      scope: 's',
    });
    expect(sallaTokens({ access_token: 'a', refresh_token: 'r', expires_in: 3600 }, now)?.expiresAt).toEqual(
      new Date(now + 3_600_000),
    );
  });

  it('refuses an answer without both tokens or without an expiry', () => {
    for (const bad of [
      null,
      {},
      { access_token: 'a', expires: 1 },
      { refresh_token: 'r', expires: 1 },
      { access_token: 'a', refresh_token: 'r' },
      { access_token: 'a', refresh_token: 'r', expires: 0 },
      { access_token: '', refresh_token: 'r', expires: 1 },
    ]) {
      expect(sallaTokens(bad, now), JSON.stringify(bad)).toBeNull();
    }
  });

  it('a token is refreshed when it expires within a day, or has no expiry', () => {
    expect(needsRefresh(null, now)).toBe(true);
    expect(needsRefresh(new Date(now + REFRESH_AHEAD_MS - 1), now)).toBe(true);
    expect(needsRefresh(new Date(now + REFRESH_AHEAD_MS + 1), now)).toBe(false);
    expect(needsRefresh(new Date(now - 1), now)).toBe(true);
  });
});

describe("the store's identity and a product webhook's product", () => {
  it("reads the store's name and its storefront's origin", () => {
    expect(sallaStore({ data: { merchant: { name: ' متجر ', domain: 'https://shop.example/ar/' } } })).toEqual({
      name: 'متجر',
      origin: 'https://shop.example',
    });
    expect(sallaStore({ data: { merchant: { domain: 'javascript:alert(1)' } } })).toEqual({ name: null, origin: null });
    expect(sallaStore(null)).toEqual({ name: null, origin: null });
  });

  it('reads the product id as digits, or nothing', () => {
    expect(sallaProductId({ id: 1025569331 })).toBe('1025569331');
    expect(sallaProductId({ id: '77' })).toBe('77');
    for (const bad of [undefined, null, -1, 1.5, '7a', '%', ''])
      expect(sallaProductId({ id: bad }), String(bad)).toBeNull();
  });
});

describe("an order.created webhook's order", () => {
  const fallback = new Date('2026-11-27T00:00:00Z');
  it('reads its id, total, currency, lines and the time in the store’s zone', () => {
    expect(
      sallaOrder(
        {
          id: 5001,
          reference_id: 95001,
          amounts: { total: { amount: 398, currency: 'sar' } },
          date: { date: '2026-11-27 10:00:00.000000', timezone: 'Asia/Riyadh' },
          items: [
            { product: { id: 101 }, quantity: 2, amounts: { total: { amount: 398, currency: 'SAR' } } },
            { product_id: '102', quantity: 1, price: 150 },
            { product: {}, quantity: 1 },
            'junk',
          ],
        },
        fallback,
      ),
    ).toEqual({
      orderId: '5001',
      total: 398,
      currency: 'SAR',
      items: [
        { merchant_product_id: '101', quantity: 2, price: 199 },
        { merchant_product_id: '102', quantity: 1, price: 150 },
      ],
      occurredAt: new Date('2026-11-27T07:00:00Z'),
    });
  });

  it('without an id or a total it is no order; without a date it happened when received', () => {
    expect(sallaOrder({ amounts: { total: { amount: 5 } } }, fallback)).toBeNull();
    expect(sallaOrder({ id: 1 }, fallback)).toBeNull();
    expect(sallaOrder({ id: 1, amounts: { total: 5 } }, fallback)?.occurredAt).toEqual(fallback);
  });

  it('reads a local time in any zone, at that time’s offset', () => {
    expect(localTime('2026-11-27 10:00:00', 'Asia/Riyadh')).toEqual(new Date('2026-11-27T07:00:00Z'));
    expect(localTime('2026-07-01 12:00', 'Europe/London')).toEqual(new Date('2026-07-01T11:00:00Z'));
    expect(localTime('2026-01-01 12:00', 'Europe/London')).toEqual(new Date('2026-01-01T12:00:00Z'));
    expect(localTime('yesterday', 'Asia/Riyadh')).toBeNull();
    expect(localTime('2026-11-27 10:00', 'Not/AZone')).toBeNull();
  });
});

describe('the edges of what is read', () => {
  const now = Date.parse('2026-11-27T12:00:00Z');
  it('only the install events may come from a store not installed', () => {
    expect([...INSTALL_EVENTS].sort()).toEqual(['app.installed', 'app.store.authorize']);
  });

  it('a store id is a positive whole number or its digits, nothing else; an event name is 1–100 characters', () => {
    for (const m of [0, -5, 1.5, Number.MAX_SAFE_INTEGER + 2, '12a', 'a12', '', '1'.repeat(21), null, {}]) {
      expect(sallaEnvelope({ event: 'e', merchant: m }), JSON.stringify(m)).toMatch(/merchant/);
    }
    expect(sallaEnvelope({ event: 'e'.repeat(100), merchant: 1 })).toMatchObject({ storeId: '1' });
    expect(sallaEnvelope({ event: 'e', merchant: 1, data: [1, 2] })).toMatchObject({ data: {} });
    expect(sallaEnvelope({ event: 'e', merchant: 1, data: 'x' })).toMatchObject({ data: {} });
  });

  it('a token is 1–4,096 characters; an expiry in the past or not a number is none', () => {
    const t = (o: object) => sallaTokens({ access_token: 'a', refresh_token: 'r', ...o }, now);
    expect(t({ expires: 1, access_token: 'x'.repeat(4096) })?.accessToken).toHaveLength(4096);
    expect(t({ expires: 1, access_token: 'x'.repeat(4097) })).toBeNull();
    expect(t({ expires_in: -10 })).toBeNull();
    expect(t({ expires_in: 0 })).toBeNull();
    expect(t({ expires: Number.NaN })).toBeNull();
    expect(t({ expires: '1800000000' })).toBeNull();
    expect(t({ expires_in: 60, expires: 'soon' })?.expiresAt).toEqual(new Date(now + 60_000));
    expect(t({ expires: 1, scope: 's'.repeat(3000) })?.scope).toHaveLength(2000);
    expect(t({ expires: 1, scope: 7 })?.scope).toBeNull();
  });

  it('refreshes a token within 24 hours of its expiry, not before', () => {
    expect(needsRefresh(new Date(now + 23 * 3600_000), now)).toBe(true);
    expect(needsRefresh(new Date(now + 25 * 3600_000), now)).toBe(false);
  });

  it("an order's currency: its total's, else the order's, else SAR; lines without a product or a quantity are left out", () => {
    const base = { id: 9, amounts: { total: { amount: '120.50' } } };
    expect(sallaOrder({ ...base, currency: 'aed' }, new Date(now))).toMatchObject({ total: 120.5, currency: 'AED' });
    expect(sallaOrder({ ...base, currency: 'dollars' }, new Date(now))?.currency).toBe('SAR');
    expect(sallaOrder({ ...base, amounts: { total: { amount: 5, currency: 'kwd' } } }, new Date(now))?.currency).toBe(
      'KWD',
    );
    for (const total of [-1, 2e9, '', 'ten', null]) {
      expect(sallaOrder({ id: 9, amounts: { total: { amount: total } } }, new Date(now)), String(total)).toBeNull();
    }
    const lines = sallaOrder(
      {
        ...base,
        items: [
          { product: { id: 1 }, quantity: 0 },
          { product: { id: 2 }, quantity: 1.5, price: 10 },
          { product: { id: 3 }, quantity: 2 },
          null,
          7,
          { product: { id: 4 }, quantity: 1, amounts: { price: { amount: 30 } } },
        ],
      },
      new Date(now),
    )?.items;
    expect(lines).toEqual([
      { merchant_product_id: '2', quantity: 1, price: 10 },
      { merchant_product_id: '3', quantity: 2, price: 0 },
      { merchant_product_id: '4', quantity: 1, price: 30 },
    ]);
    expect(
      sallaOrder(
        { ...base, items: Array.from({ length: 300 }, (_, i) => ({ product: { id: i + 1 }, quantity: 1 })) },
        new Date(now),
      )?.items,
    ).toHaveLength(200);
  });

  it('reads the seconds of a local time, a T between date and time, and no date that is not one', () => {
    expect(localTime('2026-11-27 10:00:30', 'Asia/Riyadh')).toEqual(new Date('2026-11-27T07:00:30Z'));
    expect(localTime('  2026-11-27T10:00  ', 'UTC')).toEqual(new Date('2026-11-27T10:00:00Z'));
    expect(localTime('x2026-11-27 10:00', 'UTC')).toBeNull();
    expect(
      sallaOrder({ id: 1, amounts: { total: 1 }, date: { date: '2026-11-27 10:00:00' } }, new Date(now))?.occurredAt,
    ).toEqual(new Date('2026-11-27T07:00:00Z'));
    expect(
      sallaOrder(
        { id: 1, amounts: { total: 1 }, date: { date: '2026-11-27 10:00:00', timezone: 'UTC' } },
        new Date(now),
      )?.occurredAt,
    ).toEqual(new Date('2026-11-27T10:00:00Z'));
  });

  it("reads a store's name only when it is text, and its origin only from an http(s) address", () => {
    expect(sallaStore({ data: { merchant: { name: '   ', domain: 'ftp://x.example' } } })).toEqual({
      name: null,
      origin: null,
    });
    expect(sallaStore({ data: { merchant: { name: 5, domain: 'http://x.example:8080/a' } } })).toEqual({
      name: null,
      origin: 'http://x.example:8080',
    });
    expect(sallaStore({ data: { merchant: { domain: 'not a url' } } }).origin).toBeNull();
  });
});

describe("a store's brands", () => {
  it('names each brand by its id, and says whether another page follows', () => {
    expect(
      sallaBrands({
        data: [{ id: 7, name: ' لطافة ' }, { id: '8', name: 'Rasasi' }, { id: 9 }, { name: 'no id' }, null],
        pagination: { currentPage: 1, totalPages: 2 },
      }),
    ).toEqual({ names: { '7': 'لطافة', '8': 'Rasasi' }, more: true });
    expect(sallaBrands({ data: [], pagination: { currentPage: 2, totalPages: 2 } }).more).toBe(false);
    expect(sallaBrands(null)).toEqual({ names: {}, more: false });
    expect(sallaBrands({ data: [{ id: 1, name: 'x' }] }).more).toBe(false);
  });
});

describe("Salla's dashboard page: the introspection's answer and the installer", () => {
  const now = Date.parse('2026-06-01T00:00:00Z');
  const APP = '4815162342';
  const ok = (data: Record<string, unknown>) => sallaIntrospection({ status: 200, success: true, data }, APP, now);
  const later = '2026-06-01T00:05:00Z';

  it('names the store by merchant_id (the embedded guide) or store_id (the API reference), and the user', () => {
    const until = Date.parse(later);
    expect(ok({ merchant_id: 123456, user_id: 987654, exp: later })).toEqual({
      storeId: '123456',
      userId: '987654',
      expiresAt: until,
    });
    expect(ok({ store_id: 346539387, app_id: 4815162342, user_id: 708153929, partner_id: 1, exp: later })).toEqual({
      storeId: '346539387',
      userId: '708153929',
      expiresAt: until,
    });
    expect(ok({ merchant_id: '42', exp: later })).toEqual({ storeId: '42', userId: null, expiresAt: until });
    // the expiry as Unix seconds or milliseconds, read as milliseconds
    expect(ok({ merchant_id: 1, exp: until / 1000 })?.expiresAt).toBe(until);
    expect(ok({ merchant_id: 1, exp: until })?.expiresAt).toBe(until);
  });

  it('a token is looked at before Salla is asked: 16 to 4,096 characters a token is written with', () => {
    for (const token of [
      'em_tok_0123456789abcdef',
      'a'.repeat(16),
      'a'.repeat(4096),
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
      'YWJjZGVmZ2hpamtsbW5vcA==',
      'a+b/c~d.e-f_g=hijkl',
    ]) {
      expect(sallaDashboardTokenShaped(token), token.slice(0, 40)).toBe(true);
    }
    for (const token of [
      '',
      'a'.repeat(15),
      'a'.repeat(4097),
      'em_tok_made_up',
      `em_tok_${'a'.repeat(16)} `,
      ` em_tok_${'a'.repeat(16)}`,
      `em_tok_${'a'.repeat(16)}\n`,
      `em_tok_${'a'.repeat(16)}<script>`,
      `em_tok_${'a'.repeat(16)}%00`,
      `em_tok_${'a'.repeat(16)}é`,
    ]) {
      expect(sallaDashboardTokenShaped(token), JSON.stringify(token.slice(0, 40))).toBe(false);
    }
  });

  it('refuses an answer that is not a success, names no store, another app, or no expiry ahead', () => {
    expect(sallaIntrospection({ success: false, data: { merchant_id: 1, exp: later } }, APP, now)).toBeNull();
    expect(sallaIntrospection({ success: 'true', data: { merchant_id: 1, exp: later } }, APP, now)).toBeNull();
    expect(sallaIntrospection(null, APP, now)).toBeNull();
    expect(ok({ merchant_id: 1, app_id: 1, exp: later })).toBeNull();
    for (const exp of [undefined, null, {}, true, 'soon', '2026-05-31T23:59:59Z', now / 1000 - 1, now - 1]) {
      expect(ok({ merchant_id: 1, exp }), String(exp)).toBeNull();
    }
    // an expiry at this very moment is past; an app_id given as null is no other app's
    expect(ok({ merchant_id: 1, exp: now })).toBeNull();
    expect(ok({ merchant_id: 1, app_id: null, exp: later })).not.toBeNull();
    expect(ok({ merchant_id: 1, app_id: '4815162342', exp: later })).not.toBeNull();
    // Unix seconds and milliseconds alike: 1e11 is still seconds (the year 5138), not 1973 in milliseconds
    expect(ok({ merchant_id: 1, exp: 1e11 })).not.toBeNull();
    expect(ok({ merchant_id: 1, exp: now / 1000 + 60 })).not.toBeNull();
    expect(ok({ merchant_id: 1, exp: now + 60_000 })).not.toBeNull();
    for (const id of [2 ** 53, 1e21, [1], 0, -1, 1.5, '1'.repeat(21), '', 'abc']) {
      expect(ok({ merchant_id: id, exp: later }), JSON.stringify(id)).toBeNull();
    }
  });

  it("reads the installer's id and email under data or at the top; an email must be plain ASCII", () => {
    expect(sallaInstaller({ data: { id: 1771165749, email: ' TestUser@Email.Partners ' } })).toEqual({
      userId: '1771165749',
      email: 'testuser@email.partners',
    });
    expect(sallaInstaller({ id: 5, email: 'a@b.example', merchant: { id: 9 } })).toEqual({
      userId: '5',
      email: 'a@b.example',
    });
    for (const email of ['\u212Aate@victim.example', 'kate@victim.example\u0130', 'no-at', 'a@b@c', 'a b@c.d', 7]) {
      expect(sallaInstaller({ data: { id: 1, email } }).email, String(email)).toBeNull();
    }
    expect(sallaInstaller({ data: { email: 'a@b.example' } }).userId).toBeNull();
    // an address of 320 characters is one; of 321, not
    const at = (n: number) => `${'a'.repeat(n - '@shop.example'.length)}@shop.example`;
    expect(sallaInstaller({ data: { id: 1, email: at(320) } }).email).toBe(at(320));
    expect(sallaInstaller({ data: { id: 1, email: at(321) } }).email).toBeNull();
  });
});
