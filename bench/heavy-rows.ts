/**
 * The heaviest inline catalog rows found (the attack run): 24 made-up words of
 * 11 consonants under a real house, every one new text so that no cache
 * helps. Shared by the attack benches and tests/security/fairness.test.ts.
 */
const CONSONANTS = 'bcdfghjklmnpqrstvwxz';

/** a generator of made-up words, deterministic from `seed` */
export function wordMaker(seed: number): (letters: number) => string {
  let s = seed;
  return (letters) => {
    let w = '';
    for (let i = 0; i < letters; i++) {
      s = (s * 1103515245 + 12345) % 2 ** 31;
      w += CONSONANTS[Math.floor((s / 2 ** 31) * 20)];
    }
    return w;
  };
}

/** `count` rows of 24 made-up 11-letter words (at most 300 characters) under `house` */
export function heavyRows(word: (letters: number) => string, count = 200, house = 'Lattafa') {
  return Array.from({ length: count }, (_, i) => ({
    merchant_product_id: `p${i}`,
    name: Array.from({ length: 24 }, () => word(11))
      .join(' ')
      .slice(0, 300),
    house,
  }));
}
