/**
 * The project's folder, whether this module runs from its TypeScript source (`tsx`, the tests) or
 * from the compiled JavaScript (`build/`, what `npm start` runs: docs/operations.md). Data the
 * service reads (the catalog, the vocabulary, migrations, console and demo assets, the widget's
 * built files) stays where it is in the repository; only code is compiled, so every path to data is
 * taken from here.
 */
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder the compiled JavaScript is written to (tsconfig.build.json). */
export const BUILD_DIR = 'build';

const parent = dirname(dirname(fileURLToPath(import.meta.url)));
export const ROOT = basename(parent) === BUILD_DIR ? dirname(parent) : parent;

/** True when this code is the compiled JavaScript. */
export const COMPILED = basename(parent) === BUILD_DIR;

/** A path inside the project. */
export const fromRoot = (...parts: string[]) => join(ROOT, ...parts);
