import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { KEY_INVALIDATION_CHANNEL } from '../auth/key-store.ts';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { createDatabase, type Database } from '../db/client.ts';
import { AppError } from '../lib/errors.ts';
import { createKey, listKeys, revokeKey, updateKeyOrigins } from '../services/keys.ts';
import { createMerchant, listMerchants, merchantView } from '../services/merchants.ts';
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

  --json   print JSON instead of a table
It uses DATABASE_URL (and REDIS_URL, to tell running instances about revoked keys).
On the embedded database, stop the server first or use the admin API instead.`;

type Out = { json: boolean };

function print(out: Out, value: unknown, rows?: Record<string, unknown>[], columns?: string[]) {
  if (out.json || !rows) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  else process.stdout.write(`${table(rows, columns)}\n`);
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
