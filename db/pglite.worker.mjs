// The embedded database's own thread (db/pglite-thread.ts): PGlite runs here, so its
// WebAssembly PostgreSQL — the session log's inserts above all — does not take the
// event loop that answers requests. Plain JavaScript: it loads without a TypeScript loader.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, types } from '@electric-sql/pglite';

// drizzle-orm's PGlite driver leaves these types as text: the same here, for every query
const RAW = (value) => value;
const PARSERS = {
  [types.TIMESTAMP]: RAW,
  [types.TIMESTAMPTZ]: RAW,
  [types.INTERVAL]: RAW,
  [types.DATE]: RAW,
  1231: RAW, // numeric[]
  1115: RAW, // timestamp[]
  1185: RAW, // timestamptz[]
  1187: RAW, // interval[]
  1182: RAW, // date[]
};

/** an error as data: its message and its own fields (code, detail, constraint…) */
function plain(err) {
  const out = { message: String(err?.message ?? err), name: err?.name ?? 'Error' };
  if (err && typeof err === 'object') {
    for (const [k, v] of Object.entries(err)) {
      if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) out[k] = v;
    }
  }
  return out;
}

/** rows, fields and affectedRows: what a query result holds that structured cloning keeps */
const result = (r) => ({ rows: r.rows, fields: r.fields, affectedRows: r.affectedRows });

let pg;
/** open transactions by id: their PGlite transaction object and how to end them */
const transactions = new Map();

async function handle(m) {
  switch (m.op) {
    case 'query': {
      const target = m.tx ? transactions.get(m.tx)?.tx : pg;
      if (!target) throw new Error('transaction already ended');
      return result(await target.query(m.text, m.params, { rowMode: m.rowMode, parsers: PARSERS }));
    }
    case 'exec': {
      const target = m.tx ? transactions.get(m.tx)?.tx : pg;
      if (!target) throw new Error('transaction already ended');
      return (await target.exec(m.text)).map(result);
    }
    case 'begin':
      return new Promise((began, failed) => {
        pg.transaction(
          (tx) =>
            new Promise((commit, rollback) => {
              transactions.set(m.tx, { tx, commit, rollback });
              began(true);
            }),
        ).then(
          () => transactions.get(m.tx)?.ended?.resolve(true),
          (err) => {
            const t = transactions.get(m.tx);
            if (t?.ended) t.ended.reject(err);
            else failed(err);
          },
        );
      });
    case 'commit':
    case 'rollback': {
      const t = transactions.get(m.tx);
      if (!t) throw new Error('no such transaction');
      const ended = new Promise((resolve, reject) => {
        t.ended = { resolve, reject };
      });
      if (m.op === 'commit') t.commit();
      else t.rollback(Object.assign(new Error('rolled back'), { rolledBack: true }));
      try {
        await ended;
      } catch (err) {
        if (!(m.op === 'rollback' && err?.rolledBack)) throw err;
      } finally {
        transactions.delete(m.tx);
      }
      return true;
    }
    case 'close':
      if (!pg.closed) await pg.close();
      return true;
    default:
      throw new Error(`unknown operation ${m.op}`);
  }
}

/**
 * A new database (no folder yet, an empty one, or in memory) is loaded from the shipped snapshot of a
 * new database's folder when there is one for this PGlite version (db/pglite-thread.ts
 * pgliteSnapshot): the same files initdb would write, without initdb's memory.
 */
function newDatabaseOptions() {
  const { dataDir, snapshot } = workerData;
  if (!snapshot) return {};
  if (dataDir && existsSync(dataDir) && readdirSync(dataDir).length > 0) return {};
  return { loadDataDir: new Blob([readFileSync(snapshot)], { type: 'application/x-gzip' }) };
}

try {
  // the page cache in WebAssembly memory: db/pglite-thread.ts DEFAULT_SHARED_BUFFERS_MB
  const options = {
    ...newDatabaseOptions(),
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${workerData.sharedBuffersMb}MB`],
  };
  pg = workerData.dataDir ? new PGlite(workerData.dataDir, options) : new PGlite(options);
  await pg.waitReady;
  parentPort.postMessage({ ready: true });
} catch (err) {
  parentPort.postMessage({ ready: false, error: plain(err) });
}

parentPort.on('message', (m) => {
  handle(m).then(
    (value) => parentPort.postMessage({ id: m.id, value }),
    (err) => parentPort.postMessage({ id: m.id, error: plain(err) }),
  );
});
