import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The house rules of docs/architecture.md, checked on the imports of every
 * source file (type-only imports included: a pure module that names a table's
 * type has learnt of the database).
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_DIRS = [
  'auth',
  'catalog',
  'cli',
  'console',
  'contracts',
  'db',
  'events',
  'feeds',
  'http',
  'lib',
  'matching',
  'platforms',
  'plugins',
  'privacy',
  'routes',
  'schema',
  'scoring',
  'services',
  'vocabulary',
  'widget',
];
const ROOT_FILES = ['app.ts', 'server.ts', 'config.ts'];

/** Modules that compute and know nothing of how they are served or stored. */
const PURE = [
  'scoring/',
  'matching/',
  'vocabulary/',
  'catalog/',
  'console/',
  'feeds/',
  'platforms/',
  'events/validate.ts',
  'lib/',
];
/** What a pure module may not reach, even through another module. */
const IMPURE_PACKAGES = [
  /^fastify$/,
  /^fastify-plugin$/,
  /^@fastify\//,
  /^drizzle-orm/,
  /^postgres$/,
  /^@electric-sql\/pglite/,
  /^ioredis$/,
  /^prom-client$/,
  /^node:(net|http|https|http2|dgram|dns|tls)$/,
  /^(undici|node-fetch|axios)$/,
];
const IMPURE_DIRS = ['db/', 'schema/', 'services/', 'plugins/', 'routes/', 'http/'];

type Graph = Map<string, string[]>;

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every import of a file: local ones as paths from the root, packages by name. */
function importsOf(file: string, text: string): string[] {
  // comments may quote imports (docs, examples): they are not imports
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const out: string[] = [];
  for (const m of code.matchAll(IMPORT)) {
    const spec = (m[1] ?? m[2]) as string;
    out.push(spec.startsWith('.') ? normalize(join(dirname(file), spec)) : spec);
  }
  return out;
}

function sourceFiles(): string[] {
  const files: string[] = [...ROOT_FILES];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const dir of SOURCE_DIRS) {
    try {
      walk(dir);
    } catch {
      // a folder the house does not have (yet)
    }
  }
  return files;
}

function projectGraph(): Graph {
  const graph: Graph = new Map();
  for (const file of sourceFiles()) graph.set(file, importsOf(file, readFileSync(join(ROOT, file), 'utf8')));
  return graph;
}

const isPure = (file: string) => PURE.some((p) => file === p || file.startsWith(p));
/** local imports name their file with its extension (a package is named without one) */
const local = (spec: string) => /\.[cm]?[jt]s$/.test(spec);

/** Pure modules that reach an impure package or folder, with the chain of imports that gets there. */
function impurities(graph: Graph): string[] {
  const found: string[] = [];
  for (const start of graph.keys()) {
    if (!isPure(start)) continue;
    const seen = new Set([start]);
    const queue: string[][] = [[start]];
    while (queue.length) {
      const chain = queue.shift() as string[];
      const file = chain[chain.length - 1] as string;
      for (const spec of graph.get(file) ?? []) {
        const path = [...chain, spec];
        if (!local(spec)) {
          if (IMPURE_PACKAGES.some((re) => re.test(spec))) found.push(path.join(' → '));
          continue;
        }
        if (IMPURE_DIRS.some((d) => spec.startsWith(d))) {
          found.push(path.join(' → '));
          continue;
        }
        if (!seen.has(spec)) {
          seen.add(spec);
          queue.push(path);
        }
      }
    }
  }
  return found;
}

/** Routes that reach into the database or the tables instead of calling a service. */
function routesTouchingTheDatabase(graph: Graph): string[] {
  const found: string[] = [];
  for (const [file, specs] of graph) {
    if (!file.startsWith('routes/')) continue;
    for (const spec of specs) {
      if (spec.startsWith('db/') || spec.startsWith('schema/') || /^(drizzle-orm|postgres)/.test(spec)) {
        found.push(`${file} → ${spec}`);
      }
    }
  }
  return found;
}

/** Import cycles, each as the files around it (the smallest first file, so each is listed once). */
function cycles(graph: Graph): string[] {
  const out = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const spec of graph.get(file) ?? []) {
      if (!graph.has(spec)) continue;
      const s = state.get(spec);
      if (s === 'open') {
        const loop = stack.slice(stack.indexOf(spec));
        const first = loop.indexOf([...loop].sort()[0] as string);
        out.add([...loop.slice(first), ...loop.slice(0, first)].join(' → '));
      } else if (!s) visit(spec);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return [...out];
}

describe('the house rules hold', () => {
  const graph = projectGraph();

  it('reads the whole house', () => {
    // a parser that found nothing would pass every rule below
    expect(graph.size).toBeGreaterThan(80);
    expect(graph.get('routes/widget/score.ts')).toContain('plugins/app/score-answers.ts');
  });

  it('pure modules (scoring, matching, vocabulary, catalog, event validation, lib) reach no Fastify, database or network', () => {
    expect(impurities(graph)).toEqual([]);
  });

  it('routes call services: none imports the database or the tables', () => {
    expect(routesTouchingTheDatabase(graph)).toEqual([]);
  });

  it('no two files import each other, directly or round a longer loop', () => {
    expect(cycles(graph)).toEqual([]);
  });
});

describe('the rule checks themselves', () => {
  it('find a pure module that reaches the database through another file', () => {
    const g: Graph = new Map([
      ['scoring/a.ts', ['scoring/b.ts']],
      ['scoring/b.ts', ['drizzle-orm']],
      ['matching/c.ts', ['services/products.ts']],
      ['vocabulary/d.ts', ['lru-cache']],
    ]);
    expect(impurities(g)).toEqual([
      'scoring/a.ts → scoring/b.ts → drizzle-orm',
      'scoring/b.ts → drizzle-orm',
      'matching/c.ts → services/products.ts',
    ]);
  });

  it('find a route that imports a table', () => {
    const g: Graph = new Map([
      ['routes/x.ts', ['schema/index.ts', 'services/x.ts']],
      ['routes/y.ts', ['drizzle-orm']],
    ]);
    expect(routesTouchingTheDatabase(g)).toEqual(['routes/x.ts → schema/index.ts', 'routes/y.ts → drizzle-orm']);
  });

  it('find two files that import each other, and a longer loop', () => {
    const g: Graph = new Map([
      ['catalog/store.ts', ['services/catalog.ts']],
      ['services/catalog.ts', ['catalog/store.ts']],
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
    ]);
    expect(cycles(g).sort()).toEqual(['a.ts → b.ts → c.ts', 'catalog/store.ts → services/catalog.ts']);
  });

  it('read imports of every form, and not those quoted in comments', () => {
    const text = [
      "import { a } from './a.ts';",
      "import type { B } from '../lib/b.ts';",
      "export { c } from './c.ts';",
      "import './side-effect.ts';",
      "const d = await import('./d.ts');",
      "import fp from 'fastify-plugin';",
      "// import { e } from './e.ts';",
      "/** import { f } from './f.ts'; */",
    ].join('\n');
    expect(importsOf('scoring/x.ts', text)).toEqual([
      'scoring/a.ts',
      'lib/b.ts',
      'scoring/c.ts',
      'scoring/side-effect.ts',
      'scoring/d.ts',
      'fastify-plugin',
    ]);
  });
});
