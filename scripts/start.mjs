// `npm start`: the service as plain `node` on its compiled JavaScript (build/, tsconfig.build.json),
// in this one process: no TypeScript compiler, no loader, no process between the shell and the
// service (a SIGTERM sent to `npm start` reaches the service, which closes and exits).
//
// On a fresh clone, or after the sources changed, the compiled files are made first, each build in
// a process of its own that ends before the service starts: the server's code (scripts/build.mjs:
// esbuild, file for file, under a second) and the widget's files (esbuild). docs/operations.md.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const BUILD = join(ROOT, 'build');
const SERVER = join(BUILD, 'server.js');
/** written after each compile: the sources it saw were those up to its time */
const STAMP = join(BUILD, '.compiled');
/** folders that hold no source of the service (its TypeScript is everything else, tsconfig.build.json) */
const NOT_SOURCES = new Set([
  'node_modules',
  'build',
  'dist',
  'tests',
  'bench',
  'examples',
  'scratch',
  'reports',
  'packages',
  'apps',
  'coverage',
]);

function newest(dir, depth = 0) {
  let t = 0;
  if (!existsSync(dir) || depth > 6) return t;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (!e.name.startsWith('.') && !NOT_SOURCES.has(e.name)) t = Math.max(t, newest(p, depth + 1));
    } else if (e.name.endsWith('.ts')) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

function run(what, args) {
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write(`${what} failed (exit ${r.status ?? r.signal}): run \`npm run build\` to see why\n`);
    process.exit(1);
  }
}

export function serverIsStale() {
  if (!existsSync(SERVER) || !existsSync(STAMP)) return true;
  const built = statSync(STAMP).mtimeMs;
  const sources = Math.max(
    newest(ROOT),
    ...['tsconfig.json', 'tsconfig.build.json'].map((f) => statSync(join(ROOT, f)).mtimeMs),
  );
  return sources > built;
}

/**
 * The service's TypeScript as JavaScript in build/, file for file (build/lib/root.js for
 * lib/root.ts), with esbuild: well under a second where `tsc` took about five. Types are checked by
 * `npm run typecheck`, not here (tsconfig.json's isolatedModules and verbatimModuleSyntax make every
 * file compilable alone). The files are those reachable from tsconfig.build.json's entries, found by
 * a first pass over the import graph; each is then written alone, its relative imports kept as
 * imports of the compiled file (`./x.ts` -> `./x.js`), packages left to node_modules.
 */
export async function compileServer() {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    process.stderr.write(
      'The compiled service (build/) is missing or older than its sources, and esbuild is not installed: run `npm install` then `npm run build`\n',
    );
    process.exit(1);
  }
  const started = new Date();
  const entries = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')).include.map((f) => join(ROOT, f));
  const common = {
    absWorkingDir: ROOT,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
  };
  // every source file the entries reach, dynamic imports included
  const graph = await esbuild.build({ ...common, entryPoints: entries, write: false, outdir: BUILD, metafile: true });
  const files = Object.keys(graph.metafile.inputs)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(ROOT, f));
  rmSync(BUILD, { recursive: true, force: true });
  await esbuild.build({
    ...common,
    entryPoints: files,
    outdir: BUILD,
    outbase: ROOT,
    sourcemap: true,
    plugins: [
      {
        name: 'each-file-alone',
        setup(b) {
          b.onResolve({ filter: /^\.\.?\// }, (args) =>
            args.kind === 'entry-point' ? undefined : { path: args.path.replace(/\.ts$/, '.js'), external: true },
          );
        },
      },
    ],
  });
  writeFileSync(STAMP, `${started.toISOString()}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (serverIsStale()) {
    process.stdout.write('compiling the service (build/)…\n');
    run('compiling the service', [join(ROOT, 'scripts', 'build.mjs')]);
  }
  const widget = await import(join(BUILD, 'widget', 'build.js'));
  if (widget.widgetIsStale(widget.WIDGET_DIST)) run('building the widget', [join(BUILD, 'widget', 'build.js')]);
  await import(SERVER);
}
