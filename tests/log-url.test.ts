import { describe, expect, it } from 'vitest';
import { loggableUrl } from '../lib/log-url.ts';

describe('URLs as the log keeps them', () => {
  it('keeps no secret and no contact detail a query carries', () => {
    const url =
      '/console/salla/dashboard?token=em_tok_secret&lang=ar&theme=dark&ticket=T1ck3t&code=c0de&state=st4te&email=a%40b.c&phone=%2B966500000000';
    const logged = loggableUrl(url);
    for (const secret of ['em_tok_secret', 'T1ck3t', 'c0de', 'st4te', 'a%40b.c', '%2B966500000000']) {
      expect(logged).not.toContain(secret);
    }
    expect(logged).toBe(
      '/console/salla/dashboard?token=[redacted]&lang=ar&theme=dark&ticket=[redacted]&code=[redacted]&state=[redacted]&email=[redacted]&phone=[redacted]',
    );
  });

  it('leaves other parameters and paths as they are, and matches names whole', () => {
    expect(loggableUrl('/api/x?limit=5&tokens=1&TOKEN=a#frag')).toBe('/api/x?limit=5&tokens=1&TOKEN=[redacted]#frag');
    expect(loggableUrl('/console/salla/enter')).toBe('/console/salla/enter');
  });

  it("keeps no WooCommerce connect token (WooCommerce's return carries it as user_id)", () => {
    expect(loggableUrl('/console/woocommerce/return?success=1&user_id=eyJzIjoi.c2ln')).toBe(
      '/console/woocommerce/return?success=1&user_id=[redacted]',
    );
  });
});
