/**
 * npm run bench [-- lookup|import ...]: runs the named benchmarks (all by
 * default), prints markdown tables and writes bench/results/<name>.json.
 * Figures and method are recorded in docs/benchmarks.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { runAttackBench } from './attack.ts';
import { runAttackBodiesBench } from './attack-bodies.ts';
import { runAttackLoadBench } from './attack-load.ts';
import { runConsoleBench } from './console.ts';
import { runEngineBench } from './engine.ts';
import { runEventsBench } from './events.ts';
import { runFeedLoadBench, runFeedStoreBench, runFeedsBench } from './feeds.ts';
import { runGulfBench } from './gulf.ts';
import { runImportBench } from './import.ts';
import { runLearningBench, runLearningLoadBench, runShopProfilesBench } from './learning.ts';
import { runLoadBench } from './load.ts';
import { runLookupBench } from './lookup.ts';
import { runMatchBench, runRecognitionBench } from './match.ts';
import { runNotesBench } from './notes.ts';
import { runSallaBench, runShopifyBench, runZidBench } from './platforms.ts';
import { runProfileBench } from './profile.ts';
import { runEndpointBench } from './score-endpoint.ts';
import { runStartBench } from './start.ts';
import { runRateLimitAccuracy, runThroughputBench } from './throughput.ts';

const benches: Record<string, () => Promise<unknown>> = {
  lookup: () => runLookupBench(),
  import: () => runImportBench(),
  match: () => runMatchBench(),
  recognition: () => runRecognitionBench(),
  notes: () => runNotesBench(),
  attack: () => runAttackBench(),
  'attack-load': () => runAttackLoadBench(),
  'attack-load-webhooks': () => runAttackLoadBench(console.log, 10, 'flood'),
  'attack-bodies': () => runAttackBodiesBench(),
  engine: () => runEngineBench(),
  gulf: () => runGulfBench(),
  endpoint: () => runEndpointBench(),
  events: () => runEventsBench(),
  learning: () => runLearningBench(),
  'shop-profiles': () => runShopProfilesBench(),
  'learning-load': () => runLearningLoadBench(),
  load: () => runLoadBench(),
  throughput: () => runThroughputBench(),
  'rate-limit-accuracy': () => runRateLimitAccuracy(),
  profile: () => runProfileBench(),
  console: () => runConsoleBench(),
  feeds: () => runFeedsBench(),
  'feed-load': () => runFeedLoadBench(),
  'feed-store': () => runFeedStoreBench(),
  salla: () => runSallaBench(),
  zid: () => runZidBench(),
  shopify: () => runShopifyBench(),
  start: () => runStartBench(),
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = wanted.length ? wanted : Object.keys(benches);
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
for (const name of names) {
  const bench = benches[name];
  if (!bench) {
    console.error(`unknown benchmark "${name}"; known: ${Object.keys(benches).join(', ')}`);
    process.exitCode = 1;
    continue;
  }
  console.log(`\n## ${name}\n`);
  const result = await bench();
  writeFileSync(
    new URL(`./results/${name}.json`, import.meta.url),
    JSON.stringify({ at: new Date().toISOString(), result }, null, 2),
  );
}
// a benchmark's servers and pools are closed; whatever a library leaves open must not keep the run alive
process.exit();
