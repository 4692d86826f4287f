import { describe, expect, it } from 'vitest';
import {
  CHECKS_PAST_LIMIT_PER_MINUTE,
  createKeyGuessGuard,
  type KeyCheck,
  keyGuessAddress,
  REAL_KEY_MEMORY_MS,
  REFUSED_KEYS_PER_MINUTE,
} from '../auth/key-guesses.ts';
import { cacheInventory } from '../lib/cache.ts';

/** The refused-key guard's rules on its own clock (tests/security/guesses.test.ts replays the attack). */
function guard(limit = 3) {
  const clock = { t: 1_000_000 };
  return { clock, g: createKeyGuessGuard({ limit, now: () => clock.t }) };
}
const ok = (c: KeyCheck) => {
  if (!c.ok) throw new Error(`refused: ${c.error.message}`);
  return c;
};

describe('the refused-key guard', () => {
  it('is 30 refused keys a minute by default, 5 more checked, a key remembered a day', () => {
    expect(REFUSED_KEYS_PER_MINUTE).toBe(30);
    expect(CHECKS_PAST_LIMIT_PER_MINUTE).toBe(5);
    expect(REAL_KEY_MEMORY_MS).toBe(24 * 3600_000);
  });

  it(`lets an address have limit checks, then ${CHECKS_PAST_LIMIT_PER_MINUTE} more, then answers 429 until its minute is over`, () => {
    const { clock, g } = guard(3);
    for (let i = 0; i < 3 + CHECKS_PAST_LIMIT_PER_MINUTE; i++) {
      expect(g.refusalFor('192.0.2.1')).toBeNull();
      ok(g.startCheck('192.0.2.1'));
    }
    clock.t += 20_500;
    const refused = g.startCheck('192.0.2.1');
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error).toMatchObject({
      statusCode: 429,
      code: 'rate_limited',
      message: 'Too many refused api keys from this address: at most 3 a minute; retry in 40 s',
      headers: { 'retry-after': '40' },
    });
    expect(g.refusalFor('192.0.2.1')).toMatchObject({ statusCode: 429, headers: { 'retry-after': '40' } });
    // another address is its own
    expect(g.refusalFor('192.0.2.2')).toBeNull();
    clock.t += 39_499;
    expect(g.refusalFor('192.0.2.1')?.headers).toEqual({ 'retry-after': '1' });
    clock.t += 1;
    expect(g.refusalFor('192.0.2.1')).toBeNull();
    ok(g.startCheck('192.0.2.1'));
  });

  it('a new minute of refusals starts with refusal checks, even while the checks past the last limit still count', () => {
    const { clock, g } = guard(1);
    ok(g.startCheck('192.0.2.8'));
    clock.t += 10_000;
    for (let i = 0; i < CHECKS_PAST_LIMIT_PER_MINUTE; i++) ok(g.startCheck('192.0.2.8'));
    expect(g.refusalFor('192.0.2.8')?.headers).toEqual({ 'retry-after': '50' });
    // the refusals' minute is over; the checks past the limit were counted from 10 s later
    clock.t += 50_000;
    expect(g.refusalFor('192.0.2.8')).toBeNull();
    ok(g.startCheck('192.0.2.8'));
    expect(g.startCheck('192.0.2.8')).toMatchObject({ ok: false, error: { headers: { 'retry-after': '60' } } });
  });

  it("without a clock of its own, counts on the system's", () => {
    const g = createKeyGuessGuard({ limit: 1 });
    for (let i = 0; i < 1 + CHECKS_PAST_LIMIT_PER_MINUTE; i++) ok(g.startCheck('192.0.2.9'));
    const refused = g.startCheck('192.0.2.9');
    expect(refused.ok).toBe(false);
    expect(Number(g.refusalFor('192.0.2.9')?.headers?.['retry-after'])).toBeGreaterThanOrEqual(59);
    g.rememberReal('pk_live_d', 'hash-d');
    expect(g.realKey('pk_live_d')).toBe('hash-d');
  });

  it('a check given back (a real key) is counted no more, within its window only', () => {
    const { g } = guard(2);
    ok(g.startCheck('192.0.2.3')).release();
    ok(g.startCheck('192.0.2.3'));
    const last = ok(g.startCheck('192.0.2.3'));
    last.release();
    // two refusals and one given back: the address is still below its limit, so the next is a refusal check
    ok(g.startCheck('192.0.2.3'));
    // now at the limit: the checks past it
    const past = Array.from({ length: CHECKS_PAST_LIMIT_PER_MINUTE }, () => ok(g.startCheck('192.0.2.3')));
    expect(g.startCheck('192.0.2.3').ok).toBe(false);
    // a check past the limit given back goes back to that budget
    past[0]?.release();
    expect(g.refusalFor('192.0.2.3')).toBeNull();
    ok(g.startCheck('192.0.2.3'));
    expect(g.startCheck('192.0.2.3').ok).toBe(false);
    // given back after its window ended: nothing taken from the new window
    const { clock: c2, g: g2 } = guard(1);
    const first = ok(g2.startCheck('192.0.2.4'));
    c2.t += 60_000;
    ok(g2.startCheck('192.0.2.4'));
    first.release();
    for (let i = 0; i < CHECKS_PAST_LIMIT_PER_MINUTE; i++) ok(g2.startCheck('192.0.2.4'));
    expect(g2.startCheck('192.0.2.4').ok).toBe(false);
  });

  it('a refusal no check counted counts all the same', () => {
    const { g } = guard(2);
    g.refused('192.0.2.5');
    g.refused('192.0.2.5');
    for (let i = 0; i < CHECKS_PAST_LIMIT_PER_MINUTE; i++) ok(g.startCheck('192.0.2.5'));
    expect(g.refusalFor('192.0.2.5')?.statusCode).toBe(429);
  });

  it('limit 0 is off: nothing refused, checks not counted', () => {
    const { g } = guard(0);
    for (let i = 0; i < 50; i++) {
      g.refused('192.0.2.6');
      ok(g.startCheck('192.0.2.6'));
    }
    expect(g.refusalFor('192.0.2.6')).toBeNull();
  });

  it('remembers a real key by what was sent, a day, until forgotten', () => {
    const { clock, g } = guard();
    expect(g.realKey('pk_live_a')).toBeUndefined();
    g.rememberReal('pk_live_a', 'hash-a');
    g.rememberReal('pk_live_b', 'hash-b');
    expect(g.realKey('pk_live_a')).toBe('hash-a');
    g.forget('pk_live_b');
    expect(g.realKey('pk_live_b')).toBeUndefined();
    clock.t += REAL_KEY_MEMORY_MS - 1;
    expect(g.realKey('pk_live_a')).toBe('hash-a');
    clock.t += 2;
    expect(g.realKey('pk_live_a')).toBeUndefined();
  });

  it('counts in caches of their own names', () => {
    const { g } = guard();
    const entries = (name: string) => cacheInventory().find((c) => c.name === name)?.entries ?? 0;
    const before = ['widget-key-refusals', 'widget-key-checks-past-limit', 'widget-keys-real'].map(entries);
    g.startCheck('192.0.2.7');
    g.startCheck('192.0.2.7');
    g.startCheck('192.0.2.7');
    g.startCheck('192.0.2.7');
    g.rememberReal('pk_live_c', 'hash-c');
    expect(['widget-key-refusals', 'widget-key-checks-past-limit', 'widget-keys-real'].map(entries)).toEqual(
      before.map((n) => n + 1),
    );
    expect(cacheInventory().find((c) => c.name === 'widget-keys-real')).toMatchObject({
      max: 10_000,
      ttlMs: REAL_KEY_MEMORY_MS,
      invalidatedBy: 'age (a day): a key stays real once made; a revoked one is refused by the ordinary check',
    });
  });

  it('counts an IPv6 address by its /64, an IPv4-mapped one as IPv4', () => {
    expect(keyGuessAddress('203.0.113.9')).toBe('203.0.113.9');
    expect(keyGuessAddress('2001:db8:1:2:aaaa::1')).toBe(keyGuessAddress('2001:db8:1:2:bbbb::2'));
    expect(keyGuessAddress('2001:db8:1:2::1')).not.toBe(keyGuessAddress('2001:db8:1:3::1'));
    expect(keyGuessAddress('::ffff:203.0.113.9')).toBe('203.0.113.9');
  });
});
