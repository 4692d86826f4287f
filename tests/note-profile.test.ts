import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_NOTES_PER_TIER,
  noteContributions,
  profileFromNotes,
  rankAccords,
  TIER_WEIGHT,
} from '../matching/note-profile.ts';
import { noteIndex } from '../vocabulary/notes.ts';

/** A profile from notes, the way a perfumer reads a pyramid: rules that hold for every pyramid. */
const index = noteIndex();
const slugs = [...index.bySlug.keys()].filter((s) => index.bySlug.get(s)?.group !== 'group');
const note = fc.constantFrom(...slugs);
const tierList = fc.array(note, { maxLength: 8 });
const pyramid = fc.record({ top: tierList, heart: tierList, base: tierList, flat: fc.array(note, { maxLength: 4 }) });
const ranking = (p: Parameters<typeof noteContributions>[0]) =>
  rankAccords(noteContributions(p).sum).map((a) => a.name);

describe('a profile from notes', () => {
  it('an oud, rose and saffron pyramid is an oud, rose, saffron perfume; a citrus cologne is citrus and fresh', () => {
    const oud = profileFromNotes({ top: ['saffron'], heart: ['taif rose'], base: ['oud', 'amber'] });
    expect(oud.accords.slice(0, 4).map((a) => a.name)).toEqual(expect.arrayContaining(['oud', 'rose']));
    expect(oud.families).toContain('oud');
    expect(oud.seasons).toContain('winter');
    const cologne = profileFromNotes({
      top: ['bergamot', 'lemon', 'neroli'],
      heart: ['lavender'],
      base: ['white musk'],
    });
    expect(cologne.accords[0]?.name).toBe('citrus');
    expect(cologne.families).toEqual(expect.arrayContaining(['citrus']));
    expect(cologne.seasons).toContain('summer');
  });

  it('the order of notes within a tier does not matter', () => {
    fc.assert(
      fc.property(pyramid, (p) => {
        const reversed = {
          top: [...p.top].reverse(),
          heart: [...p.heart].reverse(),
          base: [...p.base].reverse(),
          flat: [...p.flat].reverse(),
        };
        expect(profileFromNotes(reversed)).toEqual({ ...profileFromNotes(p), known: expect.anything() });
      }),
    );
  });

  it('adding a note never removes an accord it lends, nor ranks it below one it does not lend', () => {
    fc.assert(
      fc.property(
        pyramid,
        note,
        fc.constantFrom('top', 'heart', 'base', 'flat') as fc.Arbitrary<'top'>,
        (p, n, tier) => {
          const before = ranking(p);
          const after = ranking({ ...p, [tier]: [...p[tier], n] });
          const lent = new Set(Object.keys(index.bySlug.get(n)?.accords ?? {}));
          for (const a of lent) expect(after).toContain(a);
          for (const a of lent) {
            for (const c of before) {
              if (lent.has(c)) continue;
              if (before.indexOf(a) !== -1 && before.indexOf(a) < before.indexOf(c)) {
                expect(after.indexOf(a)).toBeLessThan(after.indexOf(c));
              }
            }
          }
        },
      ),
    );
  });

  it('a base note lends more than the same note on top: base notes dominate the dry-down', () => {
    expect(TIER_WEIGHT.base).toBeGreaterThan(TIER_WEIGHT.heart);
    expect(TIER_WEIGHT.heart).toBeGreaterThan(TIER_WEIGHT.top);
    // vanilla in the base and bergamot on top: vanilla leads; swapped, bergamot's citrus leads
    expect(profileFromNotes({ top: ['bergamot'], base: ['vanilla'] }).accords[0]?.name).toBe('vanilla');
    expect(profileFromNotes({ top: ['vanilla'], base: ['bergamot'] }).accords[0]?.name).toBe('citrus');
  });

  it('unknown notes are ignored, not guessed', () => {
    const p = profileFromNotes({ top: ['bergamot', 'zorblax', 'moonlight accord'], base: ['oud'] });
    expect(p.unknown).toEqual(['zorblax', 'moonlight accord']);
    expect(p.accords).toEqual(profileFromNotes({ top: ['bergamot'], base: ['oud'] }).accords);
    expect(profileFromNotes({ top: ['zorblax'] })).toMatchObject({ accords: [], families: [], seasons: [] });
  });

  it('a note listed in two tiers counts in both; twice in one tier, once', () => {
    const once = noteContributions({ heart: ['rose'] }).sum.get('rose') ?? 0;
    expect(noteContributions({ heart: ['rose', 'rose'] }).sum.get('rose')).toBe(once);
    expect(noteContributions({ heart: ['rose'], base: ['rose'] }).sum.get('rose')).toBeGreaterThan(once);
  });

  it('reads at most MAX_NOTES_PER_TIER notes of a tier, however many are sent', () => {
    const many = Array.from({ length: 5000 }, (_, i) => (i % 2 ? 'oud' : `unknown ${i}`));
    const p = profileFromNotes({ base: many });
    expect(p.unknown.length).toBeLessThanOrEqual(MAX_NOTES_PER_TIER);
  });
});
