import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAlikeResolutions, loadWithdrawn, readPerfumeFile } from '../catalog/bundled.ts';

describe('the catalog files as the loader reads them', () => {
  it('a perfume file that is not an array is refused, naming the file', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'catalog-file-')), 'one.json');
    writeFileSync(path, JSON.stringify({ id: 'x' }));
    expect(() => readPerfumeFile(path)).toThrow(`${path}: expected a JSON array of perfumes`);
    writeFileSync(path, JSON.stringify([{ id: 'x' }]));
    expect(readPerfumeFile(path)).toEqual([{ id: 'x' }]);
  });

  it('reads the withdrawn records and the accepted alike pairs, each with why', () => {
    const withdrawn = loadWithdrawn();
    expect(withdrawn.length).toBeGreaterThan(0);
    for (const w of withdrawn) expect(w.reason.length, w.id).toBeGreaterThan(10);
    const accepted = loadAlikeResolutions();
    expect(accepted.length).toBeGreaterThan(0);
    for (const r of accepted) {
      expect(r.ids.length).toBeGreaterThanOrEqual(2);
      expect(r.why.length).toBeGreaterThan(10);
    }
  });
});
