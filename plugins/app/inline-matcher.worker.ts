/**
 * The inline matcher's worker thread (plugins/app/inline-matcher.ts): holds
 * its own copy of our catalog's search index and recognises inline catalogs
 * off the event loop that answers every request. Messages in: `catalog`
 * (the perfumes and houses of a catalog version) and `match` (rows); out:
 * `{id, result}` or `{id, error}`.
 */
import { parentPort } from 'node:worker_threads';
import { buildSnapshot } from '../../catalog/store.ts';
import type { CatalogHouse, CatalogPerfume } from '../../catalog/types.ts';
import { recogniseListings } from '../../matching/recognise.ts';

export type WorkerRequest =
  | { type: 'catalog'; version: number; perfumes: CatalogPerfume[]; houses: CatalogHouse[] }
  | { type: 'match'; id: number; rows: unknown[] };

export type WorkerAnswer = { id: number; result: ReturnType<typeof recogniseListings> } | { id: number; error: string };

let snapshot = buildSnapshot(-1, [], []);
const port = parentPort;
port?.on('message', (m: WorkerRequest) => {
  if (m.type === 'catalog') {
    snapshot = buildSnapshot(m.version, m.perfumes, m.houses);
    return;
  }
  let answer: WorkerAnswer;
  try {
    answer = { id: m.id, result: recogniseListings(m.rows, snapshot) };
  } catch (err) {
    answer = { id: m.id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(answer);
});
