import { describe, expect, it } from 'vitest';
import { buildNoteIndex, checkNotes, NOTE_GROUPS, noteIndex, readNoteFiles, resolveNote } from '../vocabulary/notes.ts';

/** The notes knowledge base: its schema, its size, and the spellings shops use. */
const notes = readNoteFiles();

describe('the notes knowledge base', () => {
  it('holds at least 600 notes and materials, every record valid and every name naming one note', () => {
    expect(notes.length).toBeGreaterThanOrEqual(600);
    expect(checkNotes(notes)).toEqual([]);
  });

  it('covers every group of notes, and the names shops print for groups', () => {
    const groups = new Set(notes.map((n) => n.group));
    for (const g of NOTE_GROUPS) expect(groups, g).toContain(g);
    for (const name of ['citruses', 'spicy notes', 'woody notes', 'white flowers']) {
      expect(resolveNote(name)?.group, name).toBe('group');
    }
  });

  it.each([
    ['bergamot', 'bergamot', 'citrus'],
    ['Calabrian bergamot', 'calabrian bergamot', 'citrus'],
    ['برغموت', 'bergamot', 'citrus'],
    ['cardamom', 'cardamom', 'cardamom'],
    ['هيل', 'cardamom', 'cardamom'],
    ['حبهان', 'cardamom', 'cardamom'],
    ['ambroxan', 'ambroxan', 'amber'],
    ['Iso E Super', 'iso e super', 'woody'],
    ['tonka bean', 'tonka bean', 'sweet'],
    ['عود', 'oud', 'oud'],
    ['العود', 'oud', 'oud'],
    ['والعود', 'oud', 'oud'],
    ['صندل', 'sandalwood', 'sandalwood'],
    ['زعفران', 'saffron', 'saffron'],
    ['بالزعفران', 'saffron', 'saffron'],
    ['لبان', 'frankincense', 'incense'],
    ['olibanum', 'frankincense', 'incense'],
    ['مسك أبيض', 'white musk', 'musky'],
    ['المسك الأبيض', 'white musk', 'musky'],
    ['ورد طائفي', 'taif rose', 'rose'],
    ['roses', 'rose', 'rose'],
    ['باتشولي', 'patchouli', 'patchouli'],
    ['فانيلا', 'vanilla', 'vanilla'],
    ['فانيليا', 'vanilla', 'vanilla'],
    ['fleur d’oranger', 'orange blossom', 'orange blossom'],
  ])('%s is %s, known for %s', (name, slug, accord) => {
    const n = resolveNote(name);
    expect(n?.slug).toBe(slug);
    const best = Object.entries(n?.accords ?? {}).sort((a, b) => (b[1] as number) - (a[1] as number))[0]?.[0];
    expect(Object.keys(n?.accords ?? {})).toContain(accord);
    const weights = (n?.accords ?? {}) as Record<string, number>;
    expect(best === accord || (weights[accord] ?? 0) >= 0.5).toBe(true);
  });

  it('knows no generic word as a note: fresh, sweet, wood, flower, oil', () => {
    for (const w of ['fresh', 'sweet', 'wood', 'flower', 'oil', 'perfume', 'عطر', 'منعش'])
      expect(resolveNote(w), w).toBeNull();
  });

  it('the check finds each kind of bad record', () => {
    const good = notes[0] as (typeof notes)[number];
    const bad = [
      { ...good, slug: 'Not A Slug' },
      { ...good, slug: 'x1', accords: { 'not an accord': 1 } },
      { ...good, slug: 'x2', accords: { citrus: 0.5 } },
      { ...good, slug: 'x3', ar: 'no arabic' },
      { ...good, slug: 'x4', group: 'nowhere' },
      { ...good, slug: 'x5', aliases: [good.en] },
    ] as typeof notes;
    const problems = checkNotes([good, ...bad]).join('\n');
    expect(problems).toMatch(/Not A Slug: slug must be lower-case words/);
    expect(problems).toMatch(/x1: unknown accord/);
    expect(problems).toMatch(/x2: the accord it is best known for weighs 1/);
    expect(problems).toMatch(/x3: ar must be Arabic/);
    expect(problems).toMatch(/x4: unknown group/);
    expect(problems).toMatch(/x5: .* also names/);
  });

  it('an index of other records finds only those', () => {
    const small = buildNoteIndex(notes.filter((n) => n.slug === 'bergamot'));
    expect(resolveNote('bergamot', small)?.slug).toBe('bergamot');
    expect(resolveNote('oud', small)).toBeNull();
    expect(noteIndex().bySlug.size).toBe(notes.length);
  });
});
