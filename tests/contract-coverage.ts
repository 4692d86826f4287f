/**
 * Which operations and statuses of the published document the last test run
 * provoked, and checked against the document (tests/contract.ts):
 *   npm run test:contract-coverage
 * Reads reports/contract/ (written by each test app as it closes) and the
 * document of an app built as the tests build it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { adminHeaders, buildTestApp, CONTRACT_REPORTS, closeTestApp } from './helper.ts';

const seen = new Set(
  readdirSync(CONTRACT_REPORTS)
    .filter((f) => f.startsWith('seen-'))
    .flatMap((f) => readFileSync(join(CONTRACT_REPORTS, f), 'utf8').split('\n').filter(Boolean)),
);
const app = await buildTestApp();
const doc = (await app.inject({ method: 'GET', url: '/api/admin/openapi.json', headers: adminHeaders })).json() as {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
};
await closeTestApp(app);
let declared = 0;
let provoked = 0;
const operations: string[] = [];
for (const [path, methods] of Object.entries(doc.paths)) {
  for (const [method, op] of Object.entries(methods)) {
    const statuses = Object.keys(op.responses);
    const hit = statuses.filter((s) => seen.has(`${method.toUpperCase()} ${path} ${s}`));
    declared += statuses.length;
    provoked += hit.length;
    operations.push(`${op.operationId.padEnd(18)} ${hit.length}/${statuses.length}  ${hit.join(' ') || '-'}`);
  }
}
console.log(operations.join('\n'));
console.log(
  `\n${operations.filter((o) => !o.endsWith('-')).length} of ${operations.length} operations answered; ${provoked} of ${declared} declared statuses provoked; every answer matched the document (a test file fails otherwise)`,
);
