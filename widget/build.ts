/**
 * Builds the browser files the service serves under /widget/v1/:
 *   sillage.js   — the embeddable widget (IIFE, one script tag)
 *   client.mjs   — the headless client as an ES module (browsers and Node 20)
 *
 * esbuild bundles and minifies; the output goes to dist/widget/v1/. `npm run
 * build` runs this; the service builds on start when the files are missing or
 * older than their sources.
 *
 *   tsx widget/build.ts          build
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, Plugin } from 'esbuild';
import { ROOT } from '../lib/root.ts';

export const WIDGET_DIST = join(ROOT, 'dist', 'widget', 'v1');
export const WIDGET_FILES = ['sillage.js', 'client.mjs'] as const;
export type WidgetFile = (typeof WIDGET_FILES)[number];

/** Sources whose change makes the built files stale. */
const SOURCE_DIRS = ['widget', 'vocabulary', 'contracts', 'lib'];

function newestSource(): number {
  let newest = 0;
  for (const dir of SOURCE_DIRS) {
    const abs = join(ROOT, dir);
    if (!existsSync(abs)) continue;
    for (const f of readdirSync(abs)) {
      if (f.endsWith('.ts')) newest = Math.max(newest, statSync(join(abs, f)).mtimeMs);
    }
  }
  return newest;
}

/** True when a built file is missing or older than the sources (when the sources are here at all). */
export function widgetIsStale(dist = WIDGET_DIST): boolean {
  let oldest = Number.POSITIVE_INFINITY;
  for (const f of WIDGET_FILES) {
    const p = join(dist, f);
    if (!existsSync(p)) return true;
    oldest = Math.min(oldest, statSync(p).mtimeMs);
  }
  return newestSource() > oldest;
}

const BROWSERS = ['es2020', 'chrome90', 'edge90', 'firefox90', 'safari15', 'ios15'];

/** The headless client as an ES module: served as client.mjs, and the npm package's index.js (widget/build-client-package.ts). */
export const CLIENT_BUILD_OPTIONS = {
  entryPoints: [join(ROOT, 'widget', 'client.ts')],
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: ['es2020', 'node20'],
  charset: 'utf8',
  legalComments: 'none',
} as const satisfies BuildOptions;

/**
 * The widget shows the vocabulary's labels and never resolves a term: its build reads
 * vocabulary/index.ts without the aliases and the families' accords (a sixth of the widget's size).
 */
const LABELS_ONLY: Plugin = {
  name: 'vocabulary-labels-only',
  setup(b) {
    b.onLoad({ filter: /[\\/]vocabulary[\\/]index\.ts$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replace(/\s*(?:aliases|accords): \[(?:[^[\]]|\[[^[\]]*\])*\],?/g, ''),
      loader: 'ts',
    }));
  },
};

export async function buildWidget(dist = WIDGET_DIST): Promise<Record<WidgetFile, number>> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  // loaded only to build: a service whose files are built (`npm run build`) never loads esbuild
  const { build } = await import('esbuild');
  const outputs = await Promise.all([
    build({
      entryPoints: [join(ROOT, 'widget', 'index.ts')],
      bundle: true,
      format: 'iife',
      minify: true,
      target: BROWSERS,
      charset: 'utf8', // Arabic labels as UTF-8, not \u escapes: smaller after gzip
      legalComments: 'none',
      define: { __WIDGET_BUILD__: JSON.stringify(pkg.version) },
      plugins: [LABELS_ONLY],
      write: false,
    }),
    build({ ...CLIENT_BUILD_OPTIONS, write: false }),
  ]);
  mkdirSync(dist, { recursive: true });
  const sizes = {} as Record<WidgetFile, number>;
  WIDGET_FILES.forEach((name, i) => {
    const file = outputs[i]?.outputFiles[0];
    if (!file) throw new Error(`esbuild produced no ${name}`);
    // written whole, then renamed: a server reading at the same moment never sees half a file
    const tmp = join(
      dist,
      `.${name}.${process.pid}.${createHash('sha1').update(file.contents).digest('hex').slice(0, 8)}`,
    );
    writeFileSync(tmp, file.contents);
    renameSync(tmp, join(dist, name));
    sizes[name] = file.contents.byteLength;
  });
  return sizes;
}

/** Builds when missing or stale; returns whether it built. */
export async function ensureWidgetBuilt(dist = WIDGET_DIST): Promise<boolean> {
  if (!widgetIsStale(dist)) return false;
  await buildWidget(dist);
  return true;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const sizes = await buildWidget();
  for (const [name, bytes] of Object.entries(sizes)) {
    process.stdout.write(`${join('dist/widget/v1', name)}  ${(bytes / 1024).toFixed(1)} KB\n`);
  }
}
