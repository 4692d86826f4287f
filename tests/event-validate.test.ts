import { describe, expect, it } from 'vitest';
import { validateEvents } from '../events/validate.ts';

/**
 * The event validator itself (the route's schema refuses some shapes first:
 * here every rule is reached). Limits and windows are written out as the
 * interface and docs/analytics.md state them, not read from the module.
 */
const NOW = new Date('2026-06-01T12:00:00.000Z');
const SESSION = '0190a0b0-0000-7000-8000-000000000001';
const ok = (body: Record<string, unknown>) => {
  const r = validateEvents(body, NOW);
  if (!r.ok) throw new Error(`refused: ${JSON.stringify(r.problems)}`);
  return r.events;
};
const problems = (body: Record<string, unknown>) => {
  const r = validateEvents(body, NOW);
  if (r.ok) throw new Error('accepted');
  return r.problems;
};

describe('the request: a batch or one event inline', () => {
  it('takes one event inline, dropping the api_key it travels with, and the session of the request', () => {
    const [e] = ok({ api_key: 'pk_live_x', session_id: SESSION, type: 'widget_opened', event_id: 'e1' });
    expect(e).toEqual({ type: 'widget_opened', eventId: 'e1', occurredAt: NOW, sessionId: SESSION, data: {} });
  });

  it('takes a batch; an event without a session of its own gets the request’s, one with its own keeps it', () => {
    const other = '0190a0b0-0000-7000-8000-000000000002';
    const events = ok({
      session_id: SESSION,
      events: [{ type: 'widget_loaded' }, { type: 'widget_opened', session_id: other }],
    });
    expect(events.map((e) => e.sessionId)).toEqual([SESSION, other]);
    expect(events.map((e) => e.eventId)).toEqual([null, null]);
  });

  it('refuses both forms at once, neither form, no events and more than 50', () => {
    expect(problems({ type: 'widget_opened', events: [] })).toEqual([
      { path: '/body', message: 'send either events: [...] or one event inline, not both' },
    ]);
    expect(problems({ session_id: SESSION })).toEqual([
      { path: '/body', message: 'send events: [1–50 events] or one event with its type' },
    ]);
    expect(problems({ events: [] })).toEqual([{ path: '/body/events', message: 'must hold 1 to 50 events' }]);
    expect(problems({ events: Array.from({ length: 51 }, () => ({ type: 'widget_loaded' })) })).toEqual([
      { path: '/body/events', message: 'must hold 1 to 50 events' },
    ]);
    expect(ok({ events: Array.from({ length: 50 }, () => ({ type: 'widget_loaded' })) })).toHaveLength(50);
  });

  it('one bad event refuses the whole request, naming where each problem is', () => {
    const p = problems({ events: [{ type: 'widget_loaded' }, 'x', { type: 'nope' }] });
    expect(p.map((x) => x.path)).toEqual(['/body/events/1', '/body/events/2/type']);
    expect(p[0]?.message).toBe('an event must be an object');
    expect(p[1]?.message).toMatch(/^unknown event type "nope"; allowed: widget_loaded, /);
    expect(problems({ events: [[]] })[0]).toEqual({ path: '/body/events/0', message: 'an event must be an object' });
    // an unknown type is echoed at most 40 characters long
    expect(problems({ type: 'x'.repeat(100) })[0]?.message).toMatch(
      new RegExp(`^unknown event type "${'x'.repeat(40)}"; `),
    );
    expect(problems({ events: [null] })[0]?.message).toBe('an event must be an object');
  });

  it('an event is at most 32 KB: 32,768 characters of JSON pass, one more does not', () => {
    const sized = (n: number) => {
      const e = { type: 'widget_error', code: 'c', pad: '' };
      e.pad = 'y'.repeat(n - JSON.stringify(e).length);
      return e;
    };
    expect(JSON.stringify(sized(32_768)).length).toBe(32_768);
    expect(ok({ events: [sized(32_768)] })).toHaveLength(1);
    expect(problems({ events: [sized(32_769)] })[0]?.message).toBe('an event may be at most 32 KB');
  });

  it('an event far past 32 KB is refused', () => {
    const big = (n: number) => ({ type: 'widget_error', message: 'x'.repeat(500), code: 'c', pad: 'y'.repeat(n) });
    expect(ok({ events: [big(30_000)] })[0]?.data).toEqual({ message: 'x'.repeat(500), code: 'c' });
    expect(problems({ events: [big(33_000)] })).toEqual([
      { path: '/body/events/0', message: 'an event may be at most 32 KB' },
    ]);
  });
});

describe('each type stores the fields it defines, and nothing else', () => {
  it('a lifecycle event keeps its flat data; a field the type does not define is dropped', () => {
    const [e] = ok({ type: 'quiz_completed', data: { step: 3, ok: true }, extra: 'secret', api_key_copy: 'k' });
    expect(e?.data).toEqual({ data: { step: 3, ok: true } });
  });

  it('a click keeps its product and position; a missing one is named', () => {
    const [e] = ok({ type: 'recommendation_clicked', merchant_product_id: 'p1', position: 2 });
    expect(e?.data).toEqual({ merchant_product_id: 'p1', position: 2 });
    expect(problems({ type: 'recommendation_clicked', position: 2 })).toEqual([
      { path: '/body/merchant_product_id', message: 'recommendation_clicked needs merchant_product_id' },
    ]);
    // a value out of bounds is described in the schema's words, lower-cased
    expect(problems({ type: 'also_explore_clicked', merchant_product_id: 'p1', position: 0 })[0]).toEqual({
      path: '/body/position',
      message: 'expected integer to be greater or equal to 1',
    });
  });
});

describe('leads', () => {
  const lead = { type: 'lead_submitted', consent: true, consent_version: 'v1' };

  it('keep the contact apart from the stored data; the phone as typed, for the route to read in the merchant’s country', () => {
    const [e] = ok({ ...lead, email: 'a@b.example', phone: '+966 (55) ١٢٣-4567' });
    expect(e?.lead).toEqual({ email: 'a@b.example', phone: '+966 (55) ١٢٣-4567', consentVersion: 'v1' });
    expect(e?.data).toEqual({ consent_version: 'v1', has_email: true, has_phone: true });
  });

  it('a phone alone is enough, and so is an email alone', () => {
    const [byPhone] = ok({ ...lead, phone: '0551234567' });
    expect(byPhone?.lead).toEqual({ email: null, phone: '0551234567', consentVersion: 'v1' });
    expect(byPhone?.data).toEqual({ consent_version: 'v1', has_email: false, has_phone: true });
    expect(ok({ ...lead, email: 'a@b.example' })[0]?.data).toEqual({
      consent_version: 'v1',
      has_email: true,
      has_phone: false,
    });
  });

  it('an email alone keeps no phone; an email that is not one, or too long, is refused; so is a phone past 40 characters', () => {
    expect(ok({ ...lead, email: 'a@b.example' })[0]?.lead).toEqual({
      email: 'a@b.example',
      phone: null,
      consentVersion: 'v1',
    });
    for (const email of ['not-an-email', 'a b@c.example', `${'a'.repeat(250)}@b.example`])
      expect(problems({ ...lead, email }).length, email).toBeGreaterThan(0);
    expect(problems({ ...lead, phone: '1'.repeat(41) }).length).toBeGreaterThan(0);
  });

  it('need a contact, and consent given', () => {
    expect(problems(lead)).toEqual([{ path: '/body', message: 'lead_submitted needs an email or a phone' }]);
    expect(problems({ ...lead, email: 'a@b.example', consent: false })).toEqual([
      { path: '/body/consent', message: "must be true: a lead is stored only with the shopper's consent" },
    ]);
  });
});

describe('purchases', () => {
  const purchase = {
    type: 'purchase_completed',
    order_id: 'o-1',
    total: 300,
    currency: 'sar',
    items: [
      { merchant_product_id: 'p1', quantity: 2, price: 100 },
      { merchant_product_id: 'p2', quantity: 1, price: 100 },
    ],
  };

  it('keep the order with its currency in capitals; the stored data counts the items', () => {
    const [e] = ok(purchase);
    expect(e?.purchase).toEqual({ orderId: 'o-1', total: 300, currency: 'SAR', items: purchase.items });
    expect(e?.data).toEqual({ order_id: 'o-1', total: 300, currency: 'SAR', items: 2 });
  });

  it('refuse a currency that is no ISO 4217 code', () => {
    expect(problems({ ...purchase, currency: 'XYZ' })).toEqual([
      { path: '/body/currency', message: 'must be an ISO 4217 code such as SAR' },
    ]);
  });

  it('refuse items adding up past 1,000,000,000 (quantity × price), and take them at exactly that', () => {
    const items = (price: number) => [{ merchant_product_id: 'p1', quantity: 10_000, price }];
    expect(ok({ ...purchase, items: items(100_000) })).toHaveLength(1);
    expect(problems({ ...purchase, items: items(100_001) })).toEqual([
      { path: '/body/items', message: 'the items add up to more than 1,000,000,000 (quantity × price)' },
    ]);
  });
});

describe('occurred_at', () => {
  it('a time with text before or after it is no time', () => {
    for (const occurred_at of ['x2026-06-01T11:00:00Z', '2026-06-01T11:00:00Zx'])
      expect(problems({ type: 'widget_opened', occurred_at }).length, occurred_at).toBeGreaterThan(0);
  });

  it('defaults to the time received', () => {
    expect(ok({ type: 'widget_opened' })[0]?.occurredAt).toEqual(NOW);
  });

  it('is kept within 7 days back and 5 minutes ahead of the time received', () => {
    const at = (iso: string) => ok({ type: 'widget_opened', occurred_at: iso })[0]?.occurredAt.toISOString();
    expect(at('2026-06-01T11:00:00Z')).toBe('2026-06-01T11:00:00.000Z');
    expect(at('2026-05-25T12:00:00Z')).toBe('2026-05-25T12:00:00.000Z');
    expect(at('2026-05-01T00:00:00Z')).toBe('2026-05-25T12:00:00.000Z');
    expect(at('2026-06-01T12:04:00Z')).toBe('2026-06-01T12:04:00.000Z');
    expect(at('2027-01-01T00:00:00Z')).toBe('2026-06-01T12:05:00.000Z');
  });

  it.each([
    ['2026-06-01T11:00:00Z', true],
    ['2026-06-01T11:00Z', true],
    ['2026-06-01T11:00:00.123Z', true],
    ['2026-06-01t11:00:00z', true],
    ['2026-06-01T14:00:00+03:00', true],
    ['2026-06-01T11:00:00-01:30', true],
    ['yesterday', false],
    ['2026-06-01', false],
    ['2026-06-01T11:00:00', false],
    ['2026-06-01T11:00:00.Z', false],
    ['2026-06-01T11:00:00.aZ', false],
    ['2026-06-01T11:00:00 03:00', false],
    ['2026-06-01T11:00:00+0300', false],
    ['x2026-06-01T11:00:00Z', false],
    ['2026-06-01T11:00:00Zx', false],
    ['2026-13-45T11:00:00Z', false],
  ])('%s is a date-time: %s', (iso, good) => {
    const r = validateEvents({ type: 'widget_opened', occurred_at: iso }, NOW);
    expect(r.ok).toBe(good);
    if (!r.ok) expect(r.problems[0]?.path).toBe('/body/occurred_at');
  });
});
