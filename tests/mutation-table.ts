/**
 * The mutation scores of the last run, per module and module group, written
 * into docs/testing.md between its table markers:
 *   npm run test:mutation:table
 * Reads reports/mutation/mutation.json (written by npm run test:mutation).
 * A mutant that breaks a test file's loading is reported "Survived" having
 * run 0 tests: it is counted as killed, as it is.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface Mutant {
  status: string;
  testsCompleted?: number;
}

const ROOT = join(import.meta.dirname, '..');
const GROUPS: Record<string, string[]> = {
  scoring: ['scoring/engine.ts', 'scoring/quiz.ts', 'scoring/affinities.ts', 'scoring/products.ts'],
  'matcher and search': ['matching/matcher.ts', 'matching/reason.ts', 'matching/recognise.ts', 'catalog/search.ts'],
  catalog: ['catalog/alike.ts', 'catalog/bundled.ts'],
  'events, origins and keys': ['events/validate.ts', 'auth/origins.ts', 'auth/keys.ts'],
  guesses: ['auth/admin-token.ts', 'auth/key-guesses.ts'],
  "strangers' large bodies": ['http/large-bodies.ts'],
  'rate limits': ['lib/shared-counter.ts'],
  'sign-in guards': ['auth/sign-in-throttle.ts', 'auth/salla-dashboard-gate.ts'],
  console: ['console/install-check.ts', 'console/names.ts'],
  'feeds and platforms': [
    'feeds/google.ts',
    'feeds/generic.ts',
    'feeds/salla.ts',
    'platforms/salla.ts',
    'feeds/zid.ts',
    'platforms/zid.ts',
    'platforms/common.ts',
    'lib/pacer.ts',
    'platforms/shopify.ts',
    'feeds/shopify-graphql.ts',
    'platforms/woocommerce.ts',
    'apps/shopify/extensions/sillage-pixel/src/purchase.js',
  ],
};

export function tally(mutants: readonly Mutant[]) {
  let killed = 0;
  let survived = 0;
  let noCoverage = 0;
  let ignored = 0;
  for (const m of mutants) {
    if (m.status === 'Killed' || m.status === 'Timeout') killed++;
    else if (m.status === 'Survived' && m.testsCompleted === 0) killed++;
    else if (m.status === 'Survived') survived++;
    else if (m.status === 'NoCoverage') noCoverage++;
    else if (m.status === 'Ignored') ignored++;
  }
  const counted = killed + survived + noCoverage;
  return { total: mutants.length, killed, survived, noCoverage, ignored, score: counted ? killed / counted : 1 };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

export function table(files: Record<string, { mutants: Mutant[] }>): string {
  const rows = [
    '| group | module | mutants | killed | survived | no coverage | switched off | score |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const [group, modules] of Object.entries(GROUPS)) {
    const all: Mutant[] = [];
    for (const file of modules) {
      const mutants = files[file]?.mutants;
      if (!mutants) {
        rows.push(`| ${group} | \`${file}\` | not in this run | | | | | |`);
        continue;
      }
      all.push(...mutants);
      const t = tally(mutants);
      rows.push(
        `| ${group} | \`${file}\` | ${t.total} | ${t.killed} | ${t.survived} | ${t.noCoverage} | ${t.ignored} | ${pct(t.score)} |`,
      );
    }
    const g = tally(all);
    if (all.length === 0) {
      rows.push(`| **${group}** | all | not in this run | | | | | |`);
      continue;
    }
    rows.push(
      `| **${group}** | all | ${g.total} | ${g.killed} | ${g.survived} | ${g.noCoverage} | ${g.ignored} | **${pct(g.score)}** |`,
    );
  }
  return rows.join('\n');
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const report = JSON.parse(readFileSync(join(ROOT, 'reports/mutation/mutation.json'), 'utf8')) as {
    files: Record<string, { mutants: Mutant[] }>;
  };
  const docPath = join(ROOT, 'docs/testing.md');
  const doc = readFileSync(docPath, 'utf8');
  const start = '<!-- mutation-table:start -->';
  const end = '<!-- mutation-table:end -->';
  const a = doc.indexOf(start);
  const b = doc.indexOf(end);
  if (a < 0 || b < a) throw new Error('docs/testing.md has no mutation-table markers');
  writeFileSync(docPath, `${doc.slice(0, a + start.length)}\n${table(report.files)}\n${doc.slice(b)}`);
  process.stdout.write(`${table(report.files)}\n`);
}
