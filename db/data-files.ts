import { constants, copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where a file the service keeps with the embedded database lives (the lead key, the demo's key
 * and console password): inside the database's own folder, so a custom PGLITE_DATA_DIR holds all
 * of it and its parent nothing. Earlier versions kept these files beside the folder; such a file
 * is copied in on first use and left where it was (two data folders under one parent shared it,
 * and each must go on reading what that key encrypted).
 */
export function dataFile(dataDir: string, name: string): string {
  const file = join(dataDir, name);
  if (!existsSync(file)) {
    const earlier = join(dataDir, '..', name);
    if (existsSync(earlier)) {
      mkdirSync(dataDir, { recursive: true });
      copyFileSync(earlier, file, constants.COPYFILE_EXCL);
    }
  }
  return file;
}
