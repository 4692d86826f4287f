import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dataFile } from '../db/data-files.ts';
import { resolveLeadKey } from '../privacy/lead-key.ts';

const dir = mkdtempSync(join(tmpdir(), 'sillage-data-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('files kept with the embedded database', () => {
  it('are inside its folder, so a custom folder leaves its parent untouched', () => {
    const dataDir = join(dir, 'a', 'pglite');
    const key = resolveLeadKey({ leadEncryptionKey: null, database: { kind: 'pglite', dataDir } }, true);
    expect(readFileSync(join(dataDir, 'lead-key'), 'utf8').trim()).toBe(key?.toString('hex'));
    expect(existsSync(join(dir, 'a', 'lead-key'))).toBe(false);
    // and the same key is read back on the next start
    const again = resolveLeadKey({ leadEncryptionKey: null, database: { kind: 'pglite', dataDir } }, false);
    expect(again?.equals(key as Buffer)).toBe(true);
  });

  it('an earlier version’s file beside the folder is copied in and left where it was', () => {
    const parent = join(dir, 'b');
    mkdirSync(parent, { recursive: true });
    writeFileSync(join(parent, 'lead-key'), `${'ab'.repeat(32)}\n`);
    // two data folders under one parent shared that key: both go on reading it
    for (const name of ['one', 'two']) {
      const key = resolveLeadKey(
        { leadEncryptionKey: null, database: { kind: 'pglite', dataDir: join(parent, name) } },
        true,
      );
      expect(key?.toString('hex')).toBe('ab'.repeat(32));
    }
    expect(existsSync(join(parent, 'lead-key'))).toBe(true);
  });

  it('a file already inside wins over an earlier one beside the folder', () => {
    const parent = join(dir, 'c');
    mkdirSync(join(parent, 'pglite'), { recursive: true });
    writeFileSync(join(parent, 'demo-key'), 'old\n');
    writeFileSync(join(parent, 'pglite', 'demo-key'), 'new\n');
    expect(readFileSync(dataFile(join(parent, 'pglite'), 'demo-key'), 'utf8')).toBe('new\n');
  });
});
