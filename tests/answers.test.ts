import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  answerProfile,
  checkAnswer,
  inForceOf,
  itemsOf,
  MAX_ANSWER_ACCORDS,
  MAX_ANSWER_NOTES,
  MIN_ANSWER_SHOPS,
  type ProductAnswer,
  profileOfItems,
  proposalOf,
} from '../matching/answers.ts';

const catalog = new Map<string, { grade: string | null }>([
  ['with-profile', { grade: 'referenced' }],
  ['identity-only', { grade: null }],
]);
const perfumeOf = (id: string) => catalog.get(id);

describe("a merchant's answer as sent (matching/answers.ts)", () => {
  it('is kept by canonical slugs, any spelling in either script, once each, in the order given', () => {
    const r = checkAnswer(
      { notes: ['Oud', 'عود', 'saffron', 'زعفران', 'Rose'], accords: ['Woody', 'خشبي', 'amber'] },
      perfumeOf,
    );
    expect(r).toEqual({
      ok: true,
      answer: { notes: ['oud', 'saffron', 'rose'], accords: ['woody', 'amber'], inspired_by: null },
    });
  });

  it('refuses a note or an accord the vocabulary does not know, saying which', () => {
    expect(checkAnswer({ notes: ['oud', 'unicorn tears'] }, perfumeOf)).toEqual({
      ok: false,
      message: '"unicorn tears" is not a note the vocabulary knows',
      problem: 'note',
      item: 'unicorn tears',
    });
    expect(checkAnswer({ accords: ['woody', 'sparkly'] }, perfumeOf)).toMatchObject({
      ok: false,
      message: expect.stringContaining('accord'),
    });
  });

  it('refuses more than the main notes and accords', () => {
    const notes = [
      'oud',
      'rose',
      'saffron',
      'amber',
      'musk',
      'vanilla',
      'sandalwood',
      'patchouli',
      'bergamot',
      'jasmine',
      'leather',
      'incense',
      'cardamom',
    ];
    expect(notes.length).toBe(MAX_ANSWER_NOTES + 1);
    expect(checkAnswer({ notes }, perfumeOf)).toEqual({
      ok: false,
      message: `At most ${MAX_ANSWER_NOTES} notes`,
      problem: 'notes',
    });
    expect(checkAnswer({ notes: notes.slice(0, MAX_ANSWER_NOTES) }, perfumeOf).ok).toBe(true);
    const accords = ['woody', 'amber', 'floral', 'citrus', 'fresh', 'aromatic', 'vanilla', 'musky', 'leather'];
    expect(accords.length).toBe(MAX_ANSWER_ACCORDS + 1);
    expect(checkAnswer({ accords }, perfumeOf)).toEqual({
      ok: false,
      message: `At most ${MAX_ANSWER_ACCORDS} accords`,
      problem: 'accords',
    });
  });

  it('takes an original only from the catalog, and only one with a profile to lend', () => {
    expect(checkAnswer({ inspired_by: 'with-profile' }, perfumeOf)).toEqual({
      ok: true,
      answer: { notes: [], accords: [], inspired_by: 'with-profile' },
    });
    expect(checkAnswer({ inspired_by: 'identity-only' }, perfumeOf)).toMatchObject({
      ok: false,
      message: expect.stringContaining('no scent profile'),
    });
    expect(checkAnswer({ inspired_by: 'nowhere' }, perfumeOf)).toMatchObject({
      ok: false,
      message: expect.stringContaining('No perfume'),
    });
  });

  it('takes the accords’ limit itself, and cuts what it quotes of a wrong item', () => {
    const eight = ['woody', 'amber', 'floral', 'citrus', 'fresh', 'aromatic', 'vanilla', 'musky'];
    expect(checkAnswer({ accords: eight }, perfumeOf)).toMatchObject({ ok: true, answer: { accords: eight } });
    const long = `x${'y'.repeat(100)}`;
    expect(checkAnswer({ notes: [long] }, perfumeOf)).toMatchObject({ ok: false, item: long.slice(0, 60) });
    expect(checkAnswer({ accords: [long] }, perfumeOf)).toMatchObject({ ok: false, item: long.slice(0, 60) });
    const missing = `p${'q'.repeat(200)}`;
    expect(checkAnswer({ inspired_by: missing }, perfumeOf)).toEqual({
      ok: false,
      message: `No perfume "${missing.slice(0, 120)}" in the catalog`,
      problem: 'perfume',
      item: missing.slice(0, 120),
    });
    expect(checkAnswer({ inspired_by: 'identity-only' }, perfumeOf)).toMatchObject({ problem: 'profile' });
    expect(checkAnswer({ accords: [long] }, perfumeOf)).toMatchObject({
      problem: 'accord',
      message: `"${long.slice(0, 60)}" is not an accord the vocabulary knows`,
    });
    expect(checkAnswer({ notes: [long] }, perfumeOf)).toMatchObject({
      message: `"${long.slice(0, 60)}" is not a note the vocabulary knows`,
    });
  });

  it('an answer of notes alone, accords alone or an original alone is an answer', () => {
    expect(checkAnswer({ notes: ['oud'] }, perfumeOf)).toMatchObject({ ok: true, answer: { notes: ['oud'] } });
    expect(checkAnswer({ accords: ['woody'] }, perfumeOf)).toMatchObject({ ok: true, answer: { accords: ['woody'] } });
    expect(answerProfile(answer({ notes: ['oud'] }))?.accords.length).toBeGreaterThan(0);
    expect(answerProfile(answer({ accords: ['woody'] }))?.accords[0]?.name).toBe('woody');
  });

  it('naming nothing is no answer (it clears one)', () => {
    expect(checkAnswer({}, perfumeOf)).toEqual({ ok: true, answer: null });
    expect(checkAnswer({ notes: [], accords: [], inspired_by: null }, perfumeOf)).toEqual({ ok: true, answer: null });
  });
});

describe("the profile a merchant's answer gives its product", () => {
  it('is the merchant’s, built from its answer, its accords led by those named and the notes’ own', () => {
    const p = answerProfile({ notes: ['oud', 'saffron'], accords: ['woody'], inspired_by: null });
    expect(p).toMatchObject({ source: 'merchant', basis: ['answer'] });
    expect(p?.accords[0]?.name).toBe('woody');
    expect(p?.accords.map((a) => a.name)).toEqual(expect.arrayContaining(['oud']));
    // notes an answer names sit in no tier: it names the main ones, not where they are
    expect(p?.notes).toEqual({ top: [], heart: [], base: [] });
  });

  it('is none for an answer that only names an original', () => {
    expect(answerProfile({ notes: [], accords: [], inspired_by: 'with-profile' })).toBeNull();
  });

  it('as shops describe it, it names no basis; notes no accord comes from make none', () => {
    const p = profileOfItems(['oud'], ['woody'], 'shops');
    expect(p?.source).toBe('shops');
    expect(p && 'basis' in p).toBe(false);
    expect(profileOfItems(['not-a-note'], [], 'merchant')).toBeNull();
  });
});

const answer = (a: Partial<ProductAnswer>): ProductAnswer => ({ notes: [], accords: [], inspired_by: null, ...a });

describe('what answers propose for every shop', () => {
  it('nothing one merchant says alone is in force; what a second merchant also says is', () => {
    const one = proposalOf([{ merchantId: 'm1', answer: answer({ notes: ['oud', 'rose'], accords: ['woody'] }) }]);
    expect(one).toMatchObject({ shops: 1, inForce: [], profile: null, inspiredBy: null });
    const two = proposalOf([
      { merchantId: 'm1', answer: answer({ notes: ['oud', 'rose'], accords: ['woody'] }) },
      { merchantId: 'm2', answer: answer({ notes: ['oud', 'saffron'], accords: ['woody'] }) },
    ]);
    expect(two.votes).toEqual({ 'accord:woody': 2, 'note:oud': 2, 'note:rose': 1, 'note:saffron': 1 });
    expect(two.inForce).toEqual(['accord:woody', 'note:oud']);
    expect(two.profile).toEqual({ notes: ['oud'], accords: ['woody'] });
  });

  it('works out what is in force from votes in any order, in sorted order', () => {
    expect(
      inForceOf({ 'note:rose': 2, 'accord:woody': 2, 'note:amber': 1 }, { approved: [], rejected: [] }).inForce,
    ).toEqual(['accord:woody', 'note:rose']);
  });

  it("a pin's spelling is a fact of the perfume's proposal like an answer's", () => {
    const p = proposalOf([
      { merchantId: 'm1', items: ['spelling:x y|edp'] },
      { merchantId: 'm2', items: ['spelling:x y|edp'], answer: answer({ notes: ['oud'] }) },
    ]);
    expect(p.votes).toEqual({ 'note:oud': 1, 'spelling:x y|edp': 2 });
    expect(p.inForce).toEqual(['spelling:x y|edp']);
    expect(proposalOf([{ merchantId: 'm1', answer: answer({ notes: ['oud'] }) }]).votes).toEqual({ 'note:oud': 1 });
  });

  it("a merchant's products of one perfume are one voice", () => {
    const p = proposalOf([
      { merchantId: 'm1', answer: answer({ notes: ['oud', 'rose'] }) },
      { merchantId: 'm1', answer: answer({ notes: ['oud', 'rose'] }) },
    ]);
    expect(p).toMatchObject({ shops: 1, inForce: [], votes: { 'note:oud': 1, 'note:rose': 1 } });
  });

  it('a profile needs two facts in force: one agreed note is too thin', () => {
    const p = proposalOf([
      { merchantId: 'm1', answer: answer({ notes: ['oud', 'rose'] }) },
      { merchantId: 'm2', answer: answer({ notes: ['oud', 'amber'] }) },
    ]);
    expect(p.inForce).toEqual(['note:oud']);
    expect(p.profile).toBeNull();
  });

  it("the operator's approval puts one merchant's fact in force; a rejection keeps out even what merchants agree on", () => {
    const answers = [
      { merchantId: 'm1', answer: answer({ notes: ['oud', 'rose'], inspired_by: 'x' }) },
      { merchantId: 'm2', answer: answer({ notes: ['oud'] }) },
    ];
    const p = proposalOf(answers, { approved: ['note:rose', 'inspired:x'], rejected: ['note:oud'] });
    expect(p.inForce).toEqual(['inspired:x', 'note:rose']);
    expect(p.inspiredBy).toBe('x');
    expect(p.profile).toBeNull();
  });

  it('two originals in force are a dispute: none is used, unless the operator approved one', () => {
    const answers = [
      { merchantId: 'm1', answer: answer({ inspired_by: 'x' }) },
      { merchantId: 'm2', answer: answer({ inspired_by: 'x' }) },
      { merchantId: 'm3', answer: answer({ inspired_by: 'y' }) },
      { merchantId: 'm4', answer: answer({ inspired_by: 'y' }) },
    ];
    expect(proposalOf(answers).inspiredBy).toBeNull();
    expect(proposalOf(answers, { approved: ['inspired:y'], rejected: [] }).inspiredBy).toBe('y');
    expect(proposalOf(answers, { approved: [], rejected: ['inspired:x'] }).inspiredBy).toBe('y');
  });

  it('for any answers, in any order: a fact is in force exactly when it is not rejected and is approved or given by two merchants', () => {
    const slug = fc.constantFrom('oud', 'rose', 'amber', 'musk');
    const item = fc.oneof(
      slug.map((s) => `note:${s}`),
      slug.map((s) => `accord:${s}`),
      fc.constantFrom('inspired:x', 'inspired:y'),
    );
    const oneAnswer = fc.record({
      merchantId: fc.constantFrom('m1', 'm2', 'm3'),
      answer: fc.record({
        notes: fc.uniqueArray(slug, { maxLength: 3 }),
        accords: fc.uniqueArray(slug, { maxLength: 3 }),
        inspired_by: fc.option(fc.constantFrom('x', 'y'), { nil: null }),
      }),
    });
    fc.assert(
      fc.property(
        fc.array(oneAnswer, { maxLength: 8 }),
        fc.uniqueArray(item),
        fc.uniqueArray(item),
        (answers, approved, rejected) => {
          const review = { approved, rejected };
          const p = proposalOf(answers, review);
          const reversed = proposalOf([...answers].reverse(), review);
          expect(reversed).toEqual(p);
          const merchants = (i: string) =>
            new Set(answers.filter((a) => itemsOf(a.answer).includes(i)).map((a) => a.merchantId)).size;
          for (const i of Object.keys(p.votes)) {
            expect(p.votes[i]).toBe(merchants(i));
            const expected = !rejected.includes(i) && (approved.includes(i) || merchants(i) >= MIN_ANSWER_SHOPS);
            expect(p.inForce.includes(i)).toBe(expected);
          }
          expect(inForceOf(p.votes, review).inForce).toEqual(p.inForce);
          // facts in their sorted order, whatever order the answers came in
          expect(Object.keys(p.votes)).toEqual(Object.keys(p.votes).sort());
          expect(p.inForce).toEqual([...p.inForce].sort());
        },
      ),
    );
  });
});
