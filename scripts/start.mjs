// `npm start`: the service as plain `node` on its compiled JavaScript (build/, tsconfig.build.json),
// in this one process: no TypeScript compiler, no loader, no process between the shell and the
// service (a SIGTERM sent to `npm start` reaches the service, which closes and exits).
//
// On a fresh clone, or after the sources changed, the compiled files are made first, each build in
// a process of its own that ends before the service starts: the server's code (`tsc -p
// tsconfig.build.json`, about 5 s) and the widget's files (esbuild). docs/operations.md.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
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

export function compileServer() {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) {
    process.stderr.write(
      'The compiled service (build/) is missing or older than its sources, and the TypeScript compiler is not installed: run `npm install` then `npm run build`\n',
    );
    process.exit(1);
  }
  const started = new Date();
  run('compiling the service', [tsc, '-p', 'tsconfig.build.json']);
  writeFileSync(STAMP, `${started.toISOString()}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (serverIsStale()) {
    process.stdout.write('compiling the service (build/)…\n');
    compileServer();
  }
  const widget = await import(join(BUILD, 'widget', 'build.js'));
  if (widget.widgetIsStale(widget.WIDGET_DIST)) run('building the widget', [join(BUILD, 'widget', 'build.js')]);
  await import(SERVER);
}
