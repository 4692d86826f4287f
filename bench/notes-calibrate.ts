/**
 * Calibrates ACCORD_SALIENCE (matching/note-profile.ts):
 *   npx tsx bench/notes-calibrate.ts
 * On the shipped perfumes whose id hashes even, each accord's salience is
 * chosen among a few steps, accord by accord for four rounds, to make the
 * profiles derived from notes agree best with the catalog's accords (mean
 * accords shared in the top 5, divided by 5, plus the share whose strongest
 * accord is in the derived top 3); the agreement is then reported on the
 * perfumes whose id hashes odd, which the fit never saw. Prints the table to
 * paste into matching/note-profile.ts.
 */

import { loadBundledCatalog } from '../catalog/bundled.ts';
import { checkedPerfumeOf } from '../matching/accord-check.ts';
import { accordSums, rankAccords, resolveNotes } from '../matching/note-profile.ts';
import { slugsOf } from '../vocabulary/index.ts';

const hash = (s: string) => {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
};
const perfumes = loadBundledCatalog().perfumes.map((r) => {
  const p = checkedPerfumeOf(r);
  return {
    fit: hash(p.id) % 2 === 0,
    listed: [...p.accords]
      .sort((a, b) => b.weight - a.weight || (a.name < b.name ? -1 : 1))
      .slice(0, 5)
      .map((a) => a.name),
    notes: resolveNotes(p.notes).known,
  };
});
const salience: Record<string, number> = Object.fromEntries(slugsOf('accord').map((a) => [a, 1]));

function agreement(part: boolean | null) {
  let shared = 0;
  let top = 0;
  let n = 0;
  for (const p of perfumes) {
    if (part !== null && p.fit !== part) continue;
    n++;
    const derived = rankAccords(accordSums(p.notes, salience)).map((a) => a.name);
    shared += p.listed.filter((a) => derived.slice(0, 5).includes(a)).length;
    if (p.listed[0] && derived.slice(0, 3).includes(p.listed[0])) top++;
  }
  return { meanShared: shared / n, topInTop3: top / n, objective: shared / n / 5 + top / n };
}

const STEPS = [0.25, 0.35, 0.5, 0.7, 0.85, 1, 1.2, 1.5, 2, 2.5, 3];
let best = agreement(true).objective;
for (let round = 0; round < 4; round++) {
  for (const a of Object.keys(salience)) {
    let chosen = salience[a] as number;
    for (const v of STEPS) {
      salience[a] = v;
      const o = agreement(true).objective;
      if (o > best + 1e-9) {
        best = o;
        chosen = v;
      }
    }
    salience[a] = chosen;
  }
}
console.log('fitted on', agreement(true));
console.log('held out', agreement(false));
console.log('all', agreement(null));
console.log(JSON.stringify(Object.fromEntries(Object.entries(salience).filter(([, v]) => v !== 1)), null, 2));
