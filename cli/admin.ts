import { existsSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { KEY_INVALIDATION_CHANNEL } from '../auth/key-store.ts';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { createDatabase, type Database } from '../db/client.ts';
import { AppError } from '../lib/errors.ts';
import { loadSnapshot } from '../services/catalog.ts';
import { importCatalog, readRows } from '../services/catalog-import.ts';
import { createKey, listKeys, revokeKey, updateKeyOrigins } from '../services/keys.ts';
import { createMerchant, listMerchants, merchantView } from '../services/merchants.ts';
import { readProductFeed } from '../services/product-feed.ts';
import { listProducts, pinMatch, productView, syncProducts, unpinMatch } from '../services/products.ts';
import { table } from './format.ts';

const HELP = `Sillage admin CLI — npm run admin -- <command> [options]

  migrate                                    apply database migrations
  merchants:create --name <name> --slug <slug>
  merchants:list
  keys:create <merchant> --mode test|live [--origin <origin>]...
                                             prints the key once; origins like https://shop.example
                                             or https://*.shop.example
  keys:list <merchant>                       <merchant> is an id or a slug
  keys:revoke <key-id>
  keys:origins <key-id> [--origin <origin>]...   replaces the allowed origins
  products:sync <merchant> <file.json|file.csv> [--replace]
                                             stores and matches a product feed (format: docs/merchant-catalog.md)
  products:list <merchant> [--status matched|partial|unmatched] [--limit N]
  products:pin <merchant> <merchant-product-id> <perfume-id>
                                             matches a product by hand (find the id with lookup)
  products:unpin <merchant> <merchant-product-id>
  catalog:import <file.json|file.jsonl|file.csv>
                                             adds or updates perfumes by id (format: docs/catalog.md)

  --json   print JSON instead of a table
It uses DATABASE_URL (and REDIS_URL, to tell running instances about revoked keys).
On the embedded database, stop the server first or use the admin API instead.`;

type Out = { json: boolean };

function print(out: Out, value: unknown, rows?: Record<string, unknown>[], columns?: string[]) {
  if (out.json || !rows) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  else process.stdout.write(`${table(rows, columns)}\n`);
}

/** A one-line progress bar on stderr (redrawn on a terminal, every 10% otherwise). */
function progressBar(label: string) {
  const tty = process.stderr.isTTY;
  let fraction = 0;
  let read = 0;
  let lastDecile = -1;
  const started = Date.now();
  const draw = () => {
    const pct = Math.floor(fraction * 100);
    const width = 30;
    const filled = Math.round(fraction * width);
    const rate = Math.round(read / Math.max(0.001, (Date.now() - started) / 1000));
    const line = `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${pct}%  ${read} rows  ${rate}/s`;
    if (tty) process.stderr.write(`\r${line}`);
    else if (Math.floor(pct / 10) > lastDecile) {
      lastDecile = Math.floor(pct / 10);
      process.stderr.write(`${line}\n`);
    }
  };
  return {
    update: (f: number) => {
      fraction = Math.min(1, f);
      draw();
    },
    rows: (n: number) => {
      read = n;
      draw();
    },
    done: () => {
      fraction = 1;
      draw();
      if (tty) process.stderr.write('\n');
    },
  };
}

/** Tells running instances to drop a changed key from their caches. */
async function broadcastKeyChange(config: Config, hash: string) {
  if (!config.redisUrl) return;
  const redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  try {
    await redis.connect();
    await redis.publish(KEY_INVALIDATION_CHANNEL, hash);
  } catch {
    process.stderr.write('warning: could not reach Redis; running instances notice within a second anyway\n');
  } finally {
    redis.disconnect();
  }
}

export async function run(argv: string[], config: Config, database: Database): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      slug: { type: 'string' },
      mode: { type: 'string' },
      origin: { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
      replace: { type: 'boolean', default: false },
      status: { type: 'string' },
      limit: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, ...args] = positionals;
  const out = { json: values.json ?? false };
  const db = database.db;
  const need = (value: string | undefined, what: string) => {
    if (!value) throw new AppError(400, 'usage', `missing ${what}\n\n${HELP}`);
    return value;
  };

  switch (command) {
    case 'migrate':
      await database.migrate();
      process.stdout.write('migrations applied\n');
      return 0;
    case 'merchants:create': {
      const m = await createMerchant(db, { name: need(values.name, '--name'), slug: need(values.slug, '--slug') });
      print(out, merchantView(m), [merchantView(m)]);
      return 0;
    }
    case 'merchants:list': {
      const list = (await listMerchants(db)).map(merchantView);
      print(out, list, list, ['id', 'slug', 'name', 'created_at']);
      return 0;
    }
    case 'keys:create': {
      const mode = need(values.mode, '--mode test|live');
      if (mode !== 'test' && mode !== 'live') throw new AppError(400, 'usage', '--mode must be test or live');
      const k = await createKey(db, need(args[0], '<merchant>'), { mode, allowedOrigins: values.origin ?? [] });
      if (out.json) print(out, k);
      else {
        process.stdout.write(`key: ${k.key}\n(shown once: store it now)\n\n`);
        print(out, k, [k], ['id', 'prefix', 'mode', 'allowed_origins']);
      }
      return 0;
    }
    case 'keys:list': {
      const list = await listKeys(db, need(args[0], '<merchant>'));
      print(out, list, list, ['id', 'prefix', 'mode', 'allowed_origins', 'revoked', 'created_at', 'last_used_at']);
      return 0;
    }
    case 'keys:revoke': {
      const { key, hash } = await revokeKey(db, need(args[0], '<key-id>'));
      await broadcastKeyChange(config, hash);
      print(out, key, [key], ['id', 'prefix', 'mode', 'revoked_at']);
      return 0;
    }
    case 'keys:origins': {
      const { key, hash } = await updateKeyOrigins(db, need(args[0], '<key-id>'), values.origin ?? []);
      await broadcastKeyChange(config, hash);
      print(out, key, [key], ['id', 'prefix', 'mode', 'allowed_origins']);
      return 0;
    }
    case 'products:sync': {
      const merchant = need(args[0], '<merchant>');
      const feed = await readProductFeed(need(args[1], '<file>'));
      const summary = await syncProducts(db, await loadSnapshot(db), merchant, feed, { replace: values.replace });
      if (out.json) print(out, summary);
      else {
        const { rejections, ...counts } = summary;
        print(out, summary, [counts]);
        for (const r of rejections.slice(0, 50)) {
          process.stdout.write(
            `  row ${r.index + 1}${r.merchant_product_id ? ` (${r.merchant_product_id})` : ''}: ${r.reason}\n`,
          );
        }
        if (summary.rejected > 50)
          process.stdout.write(`  … and ${summary.rejected - 50} more rejected rows (--json lists 1,000)\n`);
      }
      return summary.rejected ? 2 : 0;
    }
    case 'products:list': {
      const status = values.status as 'matched' | 'partial' | 'unmatched' | 'pending' | undefined;
      if (status && !['matched', 'partial', 'unmatched', 'pending'].includes(status)) {
        throw new AppError(400, 'usage', '--status must be matched, partial, unmatched or pending');
      }
      const { rows, total } = await listProducts(db, need(args[0], '<merchant>'), {
        status,
        limit: Math.min(1000, Number(values.limit ?? 100) || 100),
        offset: 0,
      });
      const snapshot = await loadSnapshot(db);
      const views = rows.map((r) => productView(r, snapshot));
      if (out.json) print(out, { products: views, total });
      else {
        print(out, views, views, [
          'merchant_product_id',
          'name',
          'house',
          'status',
          'sillage_perfume_id',
          'confidence',
          'pinned',
          'reason',
        ]);
        process.stdout.write(`${views.length} of ${total}\n`);
      }
      return 0;
    }
    case 'products:pin': {
      const row = await pinMatch(
        db,
        await loadSnapshot(db),
        need(args[0], '<merchant>'),
        need(args[1], '<merchant-product-id>'),
        need(args[2], '<perfume-id>'),
      );
      const view = productView(row, await loadSnapshot(db));
      print(out, view, [view], ['merchant_product_id', 'name', 'status', 'sillage_perfume_id', 'pinned', 'reason']);
      return 0;
    }
    case 'products:unpin': {
      const snapshot = await loadSnapshot(db);
      const row = await unpinMatch(db, snapshot, need(args[0], '<merchant>'), need(args[1], '<merchant-product-id>'));
      const view = productView(row, snapshot);
      print(out, view, [view], ['merchant_product_id', 'name', 'status', 'sillage_perfume_id', 'pinned', 'reason']);
      return 0;
    }
    case 'catalog:import': {
      const file = need(args[0], '<file>');
      const bar = progressBar('importing');
      const summary = await importCatalog(db, readRows(file, bar.update), {
        onBatch: (s) => bar.rows(s.read),
      });
      bar.done();
      if (out.json) {
        print(out, summary);
        return summary.rejected.length ? 2 : 0;
      }
      process.stdout.write(
        `read ${summary.read} rows: ${summary.added} added, ${summary.updated} updated, ${summary.rejected.length} rejected` +
          `${summary.housesCreated.length ? `; new houses: ${summary.housesCreated.join(', ')}` : ''}\n`,
      );
      const shown = summary.rejected.slice(0, 50);
      for (const r of shown) process.stdout.write(`  row ${r.row}${r.id ? ` (${r.id})` : ''}: ${r.reason}\n`);
      if (summary.rejected.length > shown.length) {
        const report = `${file}.rejected.txt`;
        writeFileSync(
          report,
          summary.rejected.map((r) => `row ${r.row}${r.id ? ` (${r.id})` : ''}: ${r.reason}`).join('\n'),
        );
        process.stdout.write(
          `  … and ${summary.rejected.length - shown.length} more: every rejected row is in ${report}\n`,
        );
      }
      // 2: finished, with rejected rows (scripts can tell it from a failure, 1)
      return summary.rejected.length ? 2 : 0;
    }
    case undefined:
    case 'help':
      process.stdout.write(`${HELP}\n`);
      return command ? 0 : values.help ? 0 : 1;
    default:
      throw new AppError(400, 'usage', `unknown command "${command}"\n\n${HELP}`);
  }
}

async function main() {
  if (existsSync('.env')) process.loadEnvFile('.env');
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    throw err;
  }
  const argv = process.argv.slice(2);
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') {
    process.stdout.write(`${HELP}\n`);
    return argv.length === 0 ? 1 : 0;
  }
  let database: Database | null = null;
  try {
    database = await createDatabase(config);
    if (argv[0] !== 'migrate') await database.migrate();
    return await run(argv, config, database);
  } catch (err) {
    const message = err instanceof AppError ? err.message : (err as Error).message;
    process.stderr.write(`error: ${message}\n`);
    return 1;
  } finally {
    await database?.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main();
}
