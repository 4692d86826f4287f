/**
 * The matcher's worker thread (plugins/app/inline-matcher.ts): holds its own copy of our catalog's
 * search index and recognises listings off the event loop that answers every request: inline
 * catalogs, and a slice at a time a feed pull's, a product sync's, a rematch's or a page of
 * products explained. Messages in: `catalog` (the perfumes and houses of a catalog version), `match`
 * (rows as a merchant sends them), `products` (listings already validated, matched again) and
 * `explain` (listings' names and houses); out: `{id, result | products | explanations}` or `{id, error}`.
 */
import { parentPort } from 'node:worker_threads';
import { buildSnapshot } from '../../catalog/store.ts';
import type { CatalogHouse, CatalogPerfume } from '../../catalog/types.ts';
import type { ProductInput } from '../../matching/listing.ts';
import {
  type ExplainedListing,
  explainListing,
  type ListingExplanation,
  type RecognisedListings,
  recogniseListings,
  recogniseProduct,
  withSpelling,
} from '../../matching/recognise.ts';

export type WorkerRequest =
  | { type: 'catalog'; version: number; perfumes: CatalogPerfume[]; houses: CatalogHouse[] }
  | { type: 'match'; id: number; rows: unknown[] }
  | { type: 'products'; id: number; products: ProductInput[] }
  | { type: 'explain'; id: number; listings: ExplainedListing[] };

export type WorkerAnswer =
  | { id: number; result: RecognisedListings }
  | { id: number; products: RecognisedListings['recognised'] }
  | { id: number; explanations: ListingExplanation[] }
  | { id: number; error: string };

let snapshot = buildSnapshot(-1, [], []);
const port = parentPort;
port?.on('message', (m: WorkerRequest) => {
  if (m.type === 'catalog') {
    snapshot = buildSnapshot(m.version, m.perfumes, m.houses);
    return;
  }
  let answer: WorkerAnswer;
  try {
    answer =
      m.type === 'match'
        ? { id: m.id, result: recogniseListings(m.rows, snapshot) }
        : m.type === 'products'
          ? { id: m.id, products: m.products.map((p) => withSpelling(recogniseProduct(p, snapshot))) }
          : { id: m.id, explanations: m.listings.map((l) => explainListing(l, snapshot)) };
  } catch (err) {
    answer = { id: m.id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(answer);
});
