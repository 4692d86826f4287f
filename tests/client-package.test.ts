import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WIDGET_DIST } from '../widget/build.ts';
import { buildClientPackage, CLIENT_PACKAGE, checkDeclarations } from '../widget/build-client-package.ts';

/**
 * The headless client as a package (packages/client): its declarations are
 * the server's schemas written out, its code is the served client.mjs, and
 * `npm pack` ships only what a storefront needs.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
let out: string;
let dts: string;

beforeAll(async () => {
  // inside the repository, so that the type checks below find its node_modules (TypeBox)
  mkdirSync(join(ROOT, 'reports'), { recursive: true });
  out = mkdtempSync(join(ROOT, 'reports', 'client-package-'));
  await buildClientPackage(join(out, 'dist'));
  dts = readFileSync(join(out, 'dist', 'index.d.ts'), 'utf8');
}, 60_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

function typeErrors(dir: string, file: string, env: 'browser' | 'node' = 'browser'): string[] {
  const program = ts.createProgram([join(dir, file)], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    skipLibCheck: env === 'browser',
    ...(env === 'browser'
      ? { types: [], lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'] }
      : { types: ['node'], lib: ['lib.es2023.d.ts'] }),
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    return `${file}:${at}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]}`;
  });
}

/**
 * Each type the package declares, held identical (not merely assignable: a
 * dropped optional field or a widened literal differs) to the static type of
 * the server's schema it comes from. The last lines are controls: a type with
 * a field less, a loosened field or a field more is not identical, so `Same`
 * cannot pass vacuously.
 */
const SAME_AS_SERVER = (contracts: string, events: string, errors: string) => `
import type { Static } from '@sinclair/typebox';
import type * as pkg from './dist/index.js';
import type * as c from '${contracts}';
import type { EVENT_SCHEMAS } from '${events}';
import type { ErrorCode } from '${errors}';

type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(ok: Same<A, B>) => ok;
type Flat<T> = T extends infer O ? { [K in keyof O]: O[K] } : never;
type Ev<T extends keyof typeof EVENT_SCHEMAS> = Flat<{ type: T } & Omit<Static<(typeof EVENT_SCHEMAS)[T]>, 'type'>>;

same<pkg.Quiz, Static<typeof c.QuizSchema>>(true);
same<pkg.MerchantProductInput, Static<typeof c.MerchantProductInputSchema>>(true);
same<pkg.ScoreRequest, Static<typeof c.ScoreRequestDocument>>(true);
same<pkg.Quality, Static<typeof c.QualitySchema>>(true);
same<pkg.Recommendation, Static<typeof c.RecommendationSchema>>(true);
same<pkg.AlsoExplore, Static<typeof c.AlsoExploreSchema>>(true);
same<pkg.ScoreResponse, Static<typeof c.ScoreResponseSchema>>(true);
same<pkg.CatalogReadiness, Static<typeof c.CatalogReadinessSchema>>(true);
same<pkg.WidgetKey, Static<typeof c.WidgetKeySchema>>(true);
same<pkg.VerifyResponse, Static<typeof c.VerifyResponseSchema>>(true);
same<pkg.LookupRequest, Static<typeof c.LookupRequestSchema>>(true);
same<pkg.PerfumeResult, Static<typeof c.PerfumeResultSchema>>(true);
same<pkg.LookupResponse, Static<typeof c.LookupResponseSchema>>(true);
same<pkg.EventAck, Static<typeof c.EventResponseSchema>>(true);
same<pkg.EventType, keyof typeof EVENT_SCHEMAS>(true);
same<pkg.ServerErrorCode, ErrorCode>(true);
same<pkg.WidgetEvent, { [T in keyof typeof EVENT_SCHEMAS]: Ev<T> }[keyof typeof EVENT_SCHEMAS]>(true);
same<pkg.EventOf<'recommendation_clicked'>, Ev<'recommendation_clicked'>>(true);
same<pkg.EventOf<'lead_submitted'>, Ev<'lead_submitted'>>(true);
same<pkg.PurchaseInput, Flat<Omit<Ev<'purchase_completed'>, 'type' | 'event_id' | 'occurred_at' | 'session_id'>>>(true);
same<Parameters<pkg.SillageClient['score']>[0], Omit<Static<typeof c.ScoreRequestDocument>, 'api_key'>>(true);
same<Awaited<ReturnType<pkg.SillageClient['score']>>, pkg.Result<Static<typeof c.ScoreResponseSchema>>>(true);
same<Awaited<ReturnType<pkg.SillageClient['verify']>>, pkg.Result<Static<typeof c.VerifyResponseSchema>>>(true);

// controls
same<Omit<pkg.ScoreResponse, 'test_mode'>, Static<typeof c.ScoreResponseSchema>>(false);
same<pkg.Recommendation & { match_score: number | string }, Static<typeof c.RecommendationSchema>>(false);
same<pkg.Quiz & { extra?: string }, Static<typeof c.QuizSchema>>(false);
same<Omit<pkg.MerchantProductInput, 'image_url'>, Static<typeof c.MerchantProductInputSchema>>(false);
`;

describe('the client package', () => {
  it('declares every data type exactly as the server schema it comes from', () => {
    writeFileSync(
      join(out, 'same.ts'),
      SAME_AS_SERVER(
        join(ROOT, 'contracts', 'widget.ts'),
        join(ROOT, 'events', 'validate.ts'),
        join(ROOT, 'contracts', 'errors.ts'),
      ),
    );
    writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module' }));
    expect(typeErrors(out, 'same.ts')).toEqual([]);
  }, 60_000);

  it('declarations that stand alone: no TypeBox, no import of the repository, nothing undeclared', () => {
    expect(dts).not.toMatch(/\bimport\b|\brequire\(|typebox|Static</);
    expect(dts).toContain('export declare function createSillageClient(options: ClientOptions): SillageClient;');
    expect(dts).toContain("export declare function createPerfumeSuggester(client: Pick<SillageClient, 'lookup'>,");
    expect(checkDeclarations(dts)).toEqual([]);
    // the check itself notices a name the file does not declare
    expect(checkDeclarations(`${dts}\nexport type Leak = TObject;\n`).join('\n')).toContain(
      "Cannot find name 'TObject'",
    );
  });

  it('type-checks in server code without the DOM library (Node 20 types only)', () => {
    writeFileSync(
      join(out, 'node-only.ts'),
      `import { createPerfumeSuggester, createSillageClient, type PerfumeResult, type ScoreResponse } from './dist/index.js';
const client = createSillageClient({ baseUrl: 'https://reco.example', apiKey: 'pk_test_x', fetch: globalThis.fetch, sendBeacon: null });
export async function picks(): Promise<ScoreResponse['recommendations']> {
  const res = await client.score({ quiz: { loved_perfumes: ['lattafa-khamrah-edp'] }, locale: 'en' });
  return res.ok ? res.data.recommendations : [];
}
export function suggest(text: string, show: (found: PerfumeResult[]) => void): void {
  const suggester = createPerfumeSuggester(client, { onResults: (a) => show(a.results ?? []), minChars: 3 });
  suggester.input(text);
}
export async function search(text: string, signal: AbortSignal): Promise<string[]> {
  const res = await client.lookup({ query: text, limit: 5 }, { signal });
  return res.ok ? res.data.results.map((p) => p.sillage_perfume_id) : [];
}
`,
    );
    writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module' }));
    expect(typeErrors(out, 'node-only.ts', 'node')).toEqual([]);
  }, 60_000);

  it('ships the same code the service serves as /widget/v1/client.mjs', () => {
    const served = readFileSync(join(WIDGET_DIST, 'client.mjs'));
    expect(readFileSync(join(out, 'dist', 'index.js')).equals(served)).toBe(true);
  });

  it('is an ES module package with types first in its exports, on the engines and version of the service', () => {
    const pkg = JSON.parse(readFileSync(join(CLIENT_PACKAGE, 'package.json'), 'utf8'));
    const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('@sillage/client');
    expect(pkg.private).toBeUndefined();
    expect(pkg.type).toBe('module');
    expect(Object.keys(pkg.exports['.'])).toEqual(['types', 'import']);
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
    expect(pkg.engines).toEqual(root.engines);
    expect(pkg.version).toBe(root.version);
    expect(pkg.license).toBe('UNLICENSED');
    expect(pkg.dependencies).toBeUndefined();
    expect(root.scripts.build).toContain('widget/build-client-package.ts');
  });

  it('npm pack lists only the module, its declarations, package.json and the README (and builds them first)', async () => {
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json'], {
      cwd: CLIENT_PACKAGE,
      env: { ...process.env, npm_config_loglevel: 'silent' },
    });
    // prepack's own output comes before the JSON
    const listing = JSON.parse(stdout.slice(stdout.indexOf('[\n'))) as { files: { path: string }[] }[];
    expect(listing[0]?.files.map((f) => f.path).sort()).toEqual([
      'README.md',
      'dist/index.d.ts',
      'dist/index.js',
      'package.json',
    ]);
    // prepack built the package from the sources: its declarations are this build's
    expect(readFileSync(join(CLIENT_PACKAGE, 'dist', 'index.d.ts'), 'utf8')).toBe(dts);
  }, 120_000);
});
