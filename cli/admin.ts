import { existsSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import type { Database } from '../db/client.ts';
import { AppError } from '../lib/errors.ts';
import type { IdentityStatus } from '../schema/learning.ts';
import { importCatalog, readRows } from '../services/catalog-import.ts';
import type { SourceInput } from '../services/feeds.ts';
import { IDENTITY_LIST_STATUSES } from '../services/identities.ts';
import { readProductFeed } from '../services/product-feed.ts';
import { PROPOSAL_STATUSES, type ProposalStatus } from '../services/proposals.ts';
import { connect } from './admin-client.ts';
import { table } from './format.ts';

const HELP = `Sillage admin CLI — npm run admin -- <command> [options]

  migrate                                    apply database migrations
  merchants:create --name <name> --slug <slug>
  merchants:list
  merchants:erase <merchant> --confirm <slug>
                                             erases the merchant, everything held about it and what its shelf
                                             taught (docs/admin.md); on the database, finished before it answers
  merchants:learning <merchant> [--teaches on|off] [--learns on|off]
                                             whether its shelf teaches every shop, and learns from theirs
                                             (both on by default; docs/learning.md)
  barcodes:list [--status conflict|key] [--limit N]
                                             barcodes the shelves taught: those shops disagree on (default), or keys
  proposals:list [--status waiting|in_force|rejected|all] [--limit N]
                                             what merchants' own answers propose about perfumes (default: waiting)
  proposals:review <perfume-id> approve|reject --why <reason> [--item <item>]...
                                             approves or rejects facts proposed (all of them without --item)
  identities:list [--status waiting|approved|rejected|all] [--limit N]
                                             new perfumes the shelves propose: a house and line the catalog
                                             does not know, named by two shops or more (default: waiting)
  identities:review <id> approve|reject --why <reason> [--name <name>] [--name-ar <name>]
                    [--concentration <slug>] [--gender men|women|unisex]
                                             approved: a catalog record made of it, every shelf matched again
  keys:create <merchant> --mode test|live [--origin <origin>]...
                                             prints the key once; origins like https://shop.example
                                             or https://*.shop.example
  keys:list <merchant>                       <merchant> is an id or a slug
  keys:revoke <key-id>
  keys:origins <key-id> [--origin <origin>]...   replaces the allowed origins
  products:sync <merchant> <file.json|file.csv> [--replace]
                                             stores and matches a product feed (format: docs/merchant-catalog.md)
  products:list <merchant> [--status matched|partial|unmatched] [--limit N]
  products:rematch <merchant>                 matches stored products again after a catalog import (pins kept)
  products:pin <merchant> <merchant-product-id> <perfume-id>
                                             matches a product by hand (find the id with lookup)
  products:unpin <merchant> <merchant-product-id>
  products:answer <merchant> <merchant-product-id> [--note <note>]... [--accord <accord>]... [--inspired-by <perfume-id>]
                                             the merchant's own answer for a product with no profile (none: cleared)
  analytics <merchant> [--from <date>] [--to <date>] [--test]
                                             the widget's funnel, rates and attributed revenue (default: last 30 days, live)
  analytics:reattribute <merchant>           recomputes attribution (after ATTRIBUTION_WINDOW_DAYS changed)
  leads:export <merchant> [--csv]            contact details given with consent (decrypted)
  leads:erase <merchant> --email <email> | --phone <phone>   right to erasure
  leads:purge                                removes leads older than LEAD_RETENTION_DAYS
  catalog:import <file.json|file.jsonl|file.csv>
                                             adds or updates perfumes by id (format: docs/catalog.md)
  feeds:add <merchant> --kind shopify|shopify_admin|shopify_graphql|woocommerce|salla|google|csv|json --url <url>
            [--interval <minutes>] [--token-stdin]   a shop feed pulled on its interval (docs/feeds.md)
  feeds:list <merchant>
  feeds:test <feed-id>                       fetches the first page and shows how it reads and matches
  feeds:pull <feed-id> [--confirm] [--force] pulls now; --confirm applies a pull held for its removals
  feeds:pause <feed-id> | feeds:resume <feed-id> | feeds:remove <feed-id>
  users:create <email> --role operator|owner|staff [--merchant <merchant>]
                                             a merchant console user (docs/console.md); the password is read
                                             from standard input (piped, or typed without echo)

  --json            print JSON instead of a table
  --server <url>    the running server to talk to (default: ADMIN_URL, else http://127.0.0.1:PORT when it answers)
  --direct          work on the database (DATABASE_URL) even when a server is running

With a server running, commands go through its admin API (ADMIN_TOKEN, the server's); otherwise
to the database (DATABASE_URL, and REDIS_URL to tell running instances about revoked keys).
migrate and catalog:import always work on the database: on the embedded one, stop the server
first (it applies migrations itself when it starts).`;

type Out = { json: boolean };

/**
 * A password from standard input: the whole of it when piped (one line, its newline dropped), or
 * typed at a terminal without being shown.
 */
export async function readPassword(input: NodeJS.ReadStream = process.stdin): Promise<string> {
  if (!input.isTTY) {
    let text = '';
    for await (const chunk of input) {
      text += String(chunk);
      if (text.length > 1000) break;
    }
    return text.replace(/\r?\n$/, '');
  }
  process.stderr.write('password: ');
  input.setRawMode(true);
  input.resume();
  return new Promise((resolve) => {
    let typed = '';
    const onData = (chunk: Buffer) => {
      for (const c of chunk.toString('utf8')) {
        if (c === '\r' || c === '\n' || c === '\u0004') {
          input.setRawMode(false);
          input.pause();
          input.off('data', onData);
          process.stderr.write('\n');
          resolve(typed);
          return;
        }
        if (c === '\u0003') process.exit(130);
        typed = c === '\u007f' ? typed.slice(0, -1) : typed + c;
      }
    };
    input.on('data', onData);
  });
}

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

/** --limit: 1 to 1000, 100 when absent or not a positive number */
const limitOf = (given: string | undefined) => {
  const n = Math.trunc(Number(given ?? 100));
  return n >= 1 ? Math.min(1000, n) : 100;
};

const COMMANDS = new Set([
  'migrate',
  'feeds:add',
  'feeds:list',
  'feeds:test',
  'feeds:pull',
  'feeds:pause',
  'feeds:resume',
  'feeds:remove',
  'users:create',
  'merchants:create',
  'merchants:list',
  'merchants:erase',
  'merchants:learning',
  'barcodes:list',
  'proposals:list',
  'proposals:review',
  'identities:list',
  'identities:review',
  'keys:create',
  'keys:list',
  'keys:revoke',
  'keys:origins',
  'products:sync',
  'products:list',
  'products:rematch',
  'products:pin',
  'products:unpin',
  'products:answer',
  'analytics',
  'analytics:reattribute',
  'leads:export',
  'leads:erase',
  'leads:purge',
  'catalog:import',
]);

/**
 * merchants:erase takes `--confirm <slug>`, a value, where feeds:pull's `--confirm` is a flag: for
 * that command the value is read as the option `erase-confirm`.
 */
function eraseConfirm(argv: string[]): string[] {
  if (!argv.includes('merchants:erase')) return argv;
  return argv.map((a) =>
    a === '--confirm' ? '--erase-confirm' : a.startsWith('--confirm=') ? `--erase-confirm=${a.slice(10)}` : a,
  );
}

/**
 * Runs one command, through a running server's admin API or on the database
 * (cli/admin-client.ts decides); `database`, when given, is the one to use
 * unless a server is named (--server, ADMIN_URL).
 */
export async function run(argv: string[], config: Config, database?: Database): Promise<number> {
  const { positionals, values } = parseArgs({
    args: eraseConfirm(argv),
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
      from: { type: 'string' },
      to: { type: 'string' },
      test: { type: 'boolean', default: false },
      csv: { type: 'boolean', default: false },
      email: { type: 'string' },
      phone: { type: 'string' },
      role: { type: 'string' },
      kind: { type: 'string' },
      url: { type: 'string' },
      interval: { type: 'string' },
      'token-stdin': { type: 'boolean', default: false },
      confirm: { type: 'boolean', default: false },
      'erase-confirm': { type: 'string' },
      force: { type: 'boolean', default: false },
      merchant: { type: 'string' },
      teaches: { type: 'string' },
      learns: { type: 'string' },
      note: { type: 'string', multiple: true },
      accord: { type: 'string', multiple: true },
      'inspired-by': { type: 'string' },
      why: { type: 'string' },
      item: { type: 'string', multiple: true },
      'name-ar': { type: 'string' },
      concentration: { type: 'string' },
      gender: { type: 'string' },
      server: { type: 'string' },
      direct: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, ...args] = positionals;
  if (command === undefined || command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return command ? 0 : values.help ? 0 : 1;
  }
  if (!COMMANDS.has(command)) throw new AppError(400, 'usage', `unknown command "${command}"\n\n${HELP}`);
  if (values.server !== undefined && !/^https?:\/\/[^\s/]+(\/\S*)?$/.test(values.server)) {
    throw new AppError(400, 'usage', '--server must be an http(s) URL, like http://127.0.0.1:3000');
  }
  const out = { json: values.json ?? false };
  const need = (value: string | undefined, what: string) => {
    if (!value) throw new AppError(400, 'usage', `missing ${what}\n\n${HELP}`);
    return value;
  };
  const admin = await connect(config, {
    command,
    server: values.server,
    direct: values.direct ?? false,
    database,
    note: (line) => process.stderr.write(`${line}\n`),
  });
  try {
    switch (command) {
      case 'migrate':
        await admin.database().migrate();
        process.stdout.write('migrations applied\n');
        return 0;
      case 'merchants:create': {
        const m = await admin.createMerchant({ name: need(values.name, '--name'), slug: need(values.slug, '--slug') });
        print(out, m, [m]);
        return 0;
      }
      case 'merchants:list': {
        const list = await admin.listMerchants();
        print(out, list, list, ['id', 'slug', 'name', 'created_at']);
        return 0;
      }
      case 'merchants:erase': {
        const merchant = need(args[0], '<merchant>');
        const confirm = need(values['erase-confirm'], "--confirm <slug> (the merchant's slug)");
        const r = await admin.eraseMerchant(merchant, confirm);
        print(out, r, [r], ['merchant_id', 'status']);
        return 0;
      }
      case 'merchants:learning': {
        const onOff = (v: string | undefined, what: string) => {
          if (v === undefined) return undefined;
          if (v !== 'on' && v !== 'off') throw new AppError(400, 'usage', `${what} must be on or off`);
          return v === 'on';
        };
        const change = { teaches: onOff(values.teaches, '--teaches'), learns: onOff(values.learns, '--learns') };
        const merchant = need(args[0], '<merchant>');
        const m =
          change.teaches === undefined && change.learns === undefined
            ? (await admin.listMerchants()).find((x) => x.id === merchant || x.slug === merchant)
            : await admin.updateMerchant(merchant, change);
        if (!m) throw new AppError(404, 'merchant_not_found', `No merchant with id or slug "${merchant}"`);
        print(out, m, [m], ['slug', 'teaches', 'learns']);
        return 0;
      }
      case 'barcodes:list': {
        const status = values.status ?? 'conflict';
        if (status !== 'conflict' && status !== 'key')
          throw new AppError(400, 'usage', '--status must be conflict or key');
        const { barcodes, total } = await admin.listLearntBarcodes({ status, limit: limitOf(values.limit) });
        if (out.json) print(out, { barcodes, total });
        else {
          const rows = barcodes.map((b) => ({
            barcode: b.barcode,
            shops: b.shops,
            perfume: b.perfume
              ? `${b.perfume.sillage_perfume_id}`
              : (b.perfumes ?? []).map((p) => `${p.sillage_perfume_id} (${p.shops})`).join(', '),
          }));
          print(out, rows, rows, ['barcode', 'shops', 'perfume']);
          process.stdout.write(`${barcodes.length} of ${total}\n`);
        }
        return 0;
      }
      case 'proposals:list': {
        const status = values.status ?? 'waiting';
        if (!(PROPOSAL_STATUSES as readonly string[]).includes(status))
          throw new AppError(400, 'usage', `--status must be one of ${PROPOSAL_STATUSES.join(', ')}`);
        const { proposals, total } = await admin.listProposals({
          status: status as ProposalStatus,
          limit: limitOf(values.limit),
        });
        if (out.json) print(out, { proposals, total });
        else {
          const rows = proposals.flatMap((p) =>
            p.facts.map((f) => ({ perfume: p.sillage_perfume_id, item: f.item, shops: f.shops, state: f.state })),
          );
          print(out, rows, rows, ['perfume', 'item', 'shops', 'state']);
          process.stdout.write(`${proposals.length} of ${total}\n`);
        }
        return 0;
      }
      case 'proposals:review': {
        const perfume = need(args[0], '<perfume-id>');
        const decision = need(args[1], 'approve|reject');
        if (decision !== 'approve' && decision !== 'reject')
          throw new AppError(400, 'usage', 'the decision must be approve or reject');
        const p = await admin.reviewProposal(perfume, {
          decision,
          why: need(values.why, '--why <reason>'),
          ...(values.item?.length ? { items: values.item } : {}),
        });
        if (out.json) print(out, p);
        else {
          const rows = p.facts.map((f) => ({ item: f.item, shops: f.shops, state: f.state, approved: f.approved }));
          print(out, rows, rows, ['item', 'shops', 'state', 'approved']);
        }
        return 0;
      }
      case 'identities:list': {
        const status = values.status ?? 'waiting';
        if (!(IDENTITY_LIST_STATUSES as readonly string[]).includes(status))
          throw new AppError(400, 'usage', `--status must be one of ${IDENTITY_LIST_STATUSES.join(', ')}`);
        const { identities, total } = await admin.listIdentities({
          status: status as IdentityStatus | 'all',
          limit: limitOf(values.limit),
        });
        if (out.json) print(out, { identities, total });
        else {
          const rows = identities.map((i) => ({
            id: i.id,
            house: i.house,
            name: i.name,
            concentration: i.concentration ?? '?',
            shops: i.shops,
            status: i.status,
          }));
          print(out, rows, rows, ['id', 'house', 'name', 'concentration', 'shops', 'status']);
          process.stdout.write(`${identities.length} of ${total}\n`);
        }
        return 0;
      }
      case 'identities:review': {
        const id = need(args[0], '<id>');
        const decision = need(args[1], 'approve|reject');
        if (decision !== 'approve' && decision !== 'reject')
          throw new AppError(400, 'usage', 'the decision must be approve or reject');
        const i = await admin.reviewIdentity(id, {
          decision,
          why: need(values.why, '--why <reason>'),
          ...(values.name ? { name: values.name } : {}),
          ...(values['name-ar'] ? { name_ar: values['name-ar'] } : {}),
          ...(values.concentration ? { concentration: values.concentration } : {}),
          ...(values.gender ? { gender: values.gender } : {}),
        });
        print(out, i, [i], ['id', 'house', 'name', 'status', 'sillage_perfume_id']);
        return 0;
      }
      case 'keys:create': {
        const mode = need(values.mode, '--mode test|live');
        if (mode !== 'test' && mode !== 'live') throw new AppError(400, 'usage', '--mode must be test or live');
        const k = await admin.createKey(need(args[0], '<merchant>'), { mode, allowed_origins: values.origin ?? [] });
        if (out.json) print(out, k);
        else {
          process.stdout.write(`key: ${k.key}\n(shown once: store it now)\n\n`);
          print(out, k, [k], ['id', 'prefix', 'mode', 'allowed_origins']);
        }
        return 0;
      }
      case 'keys:list': {
        const list = await admin.listKeys(need(args[0], '<merchant>'));
        print(out, list, list, ['id', 'prefix', 'mode', 'allowed_origins', 'revoked', 'created_at', 'last_used_at']);
        return 0;
      }
      case 'keys:revoke': {
        const key = await admin.revokeKey(need(args[0], '<key-id>'));
        print(out, key, [key], ['id', 'prefix', 'mode', 'revoked_at']);
        return 0;
      }
      case 'keys:origins': {
        const key = await admin.updateKeyOrigins(need(args[0], '<key-id>'), values.origin ?? []);
        print(out, key, [key], ['id', 'prefix', 'mode', 'allowed_origins']);
        return 0;
      }
      case 'products:sync': {
        const merchant = need(args[0], '<merchant>');
        const feed = await readProductFeed(need(args[1], '<file>'));
        const summary = await admin.syncProducts(merchant, feed, values.replace ?? false);
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
        const { products: views, total } = await admin.listProducts(need(args[0], '<merchant>'), {
          status,
          limit: limitOf(values.limit),
        });
        if (out.json) print(out, { products: views, total });
        else {
          print(out, views, views, [
            'merchant_product_id',
            'name',
            'house',
            'status',
            'quality',
            'sillage_perfume_id',
            'confidence',
            'pinned',
            'reason',
          ]);
          process.stdout.write(`${views.length} of ${total}\n`);
        }
        return 0;
      }
      case 'products:rematch': {
        const summary = await admin.rematchProducts(need(args[0], '<merchant>'));
        print(out, summary, [{ ...summary }]);
        return 0;
      }
      case 'products:pin':
      case 'products:unpin': {
        const merchant = need(args[0], '<merchant>');
        const product = need(args[1], '<merchant-product-id>');
        const view =
          command === 'products:pin'
            ? await admin.pinProduct(merchant, product, need(args[2], '<perfume-id>'))
            : await admin.unpinProduct(merchant, product);
        print(out, view, [view], ['merchant_product_id', 'name', 'status', 'sillage_perfume_id', 'pinned', 'reason']);
        return 0;
      }
      case 'products:answer': {
        const view = await admin.answerProduct(need(args[0], '<merchant>'), need(args[1], '<merchant-product-id>'), {
          notes: values.note ?? [],
          accords: values.accord ?? [],
          inspired_by: values['inspired-by'] ?? null,
        });
        const shown = { ...view, inspired_by: view.inspired_by?.sillage_perfume_id ?? null };
        print(out, view, [shown], ['merchant_product_id', 'name', 'status', 'quality', 'inspired_by']);
        return 0;
      }
      case 'analytics': {
        const to = values.to ? new Date(values.to) : new Date();
        const from = values.from ? new Date(values.from) : new Date(to.getTime() - 30 * 24 * 3600 * 1000);
        if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) || from >= to) {
          throw new AppError(400, 'usage', '--from and --to must be dates, from before to');
        }
        const a = await admin.analytics(need(args[0], '<merchant>'), { from, to, test: values.test ?? false });
        if (out.json) {
          print(out, a);
          return 0;
        }
        const pct = (r: number | null) => (r === null ? '-' : `${(r * 100).toFixed(1)}%`);
        process.stdout.write(
          `${a.merchant.name} (${a.merchant.slug}), ${a.traffic} traffic, ${a.from.slice(0, 10)} to ${a.to.slice(0, 10)}\n\n`,
        );
        print(
          out,
          a.funnel,
          Object.entries(a.funnel).map(([step, count]) => ({ step, count })),
        );
        process.stdout.write(
          `\nclick-through ${pct(a.click_through_rate)}, conversion ${pct(a.conversion_rate)}; orders ${a.orders.total}, attributed ${a.orders.attributed} (window ${a.attribution_window_days} days)\n\n`,
        );
        print(out, a.attributed_revenue, a.attributed_revenue, ['currency', 'orders', 'revenue']);
        process.stdout.write('\ntop recommended\n');
        print(out, a.top_recommended, a.top_recommended);
        process.stdout.write('\ntop clicked\n');
        print(out, a.top_clicked, a.top_clicked);
        process.stdout.write('\nloved accords\n');
        print(out, a.loved_accords, a.loved_accords);
        process.stdout.write('\navoided accords\n');
        print(out, a.avoided_accords, a.avoided_accords);
        process.stdout.write('\nloved perfumes\n');
        print(out, a.loved_perfumes, a.loved_perfumes);
        return 0;
      }
      case 'analytics:reattribute': {
        const done = await admin.reattribute(need(args[0], '<merchant>'));
        process.stdout.write(
          `purchases of ${done.slug} re-attributed with a ${done.attribution_window_days}-day window\n`,
        );
        return 0;
      }
      case 'leads:export': {
        const merchant = need(args[0], '<merchant>');
        if (values.csv) process.stdout.write(await admin.exportLeadsCsv(merchant));
        else {
          const rows = await admin.exportLeads(merchant);
          print(out, rows, rows as unknown as Record<string, unknown>[], [
            'email',
            'phone',
            'consent_at',
            'consent_version',
            'test',
          ]);
        }
        return 0;
      }
      case 'leads:erase': {
        if (!values.email && !values.phone)
          throw new AppError(400, 'usage', `leads:erase needs --email or --phone\n\n${HELP}`);
        const deleted = await admin.eraseLeads(need(args[0], '<merchant>'), {
          email: values.email,
          phone: values.phone,
        });
        process.stdout.write(`${deleted} lead(s) erased\n`);
        return 0;
      }
      case 'feeds:add': {
        const kind = need(values.kind, '--kind') as SourceInput['kind'];
        const interval = values.interval ? Number(values.interval) : undefined;
        if (interval !== undefined && !Number.isInteger(interval))
          throw new AppError(400, 'usage', '--interval is minutes');
        const token = values['token-stdin'] ? await readPassword() : undefined;
        const f = await admin.createFeed(need(args[0], '<merchant>'), {
          kind,
          url: need(values.url, '--url'),
          ...(interval ? { interval_minutes: interval } : {}),
          ...(token ? { token } : {}),
        });
        print(out, f, [f], ['id', 'kind', 'url', 'interval_minutes', 'paused']);
        return 0;
      }
      case 'feeds:list': {
        const list = await admin.listFeeds(need(args[0], '<merchant>'));
        const rows = list.map((f) => ({
          id: f.id,
          kind: f.kind,
          url: f.url,
          every: `${f.interval_minutes} min`,
          paused: f.paused,
          last: f.last_pull ? `${f.last_pull.status} ${f.last_pull.started_at}` : '',
          error: f.last_pull?.error ?? '',
        }));
        print(out, list, rows);
        return 0;
      }
      case 'feeds:test': {
        const r = await admin.testFeed(need(args[0], '<feed-id>'));
        if (!r.ok) throw new AppError(400, r.code, r.error);
        print(
          out,
          r,
          r.products.map((p) => ({
            id: p.merchant_product_id,
            name: p.name,
            house: p.house,
            price: p.sale_price ?? p.price,
            available: p.available,
            status: p.status,
            perfume: p.sillage_perfume_id ?? '',
          })),
        );
        return 0;
      }
      case 'feeds:pull': {
        const p = await admin.pullFeed(need(args[0], '<feed-id>'), {
          confirm: values.confirm ?? false,
          force: values.force ?? false,
        });
        print(out, p, [p], ['status', 'pages', 'received', 'added', 'changed', 'removed', 'rejected', 'error']);
        return p.status === 'failed' || p.status === 'held' ? 1 : 0;
      }
      case 'feeds:pause':
      case 'feeds:resume': {
        const f = await admin.updateFeed(need(args[0], '<feed-id>'), { paused: command === 'feeds:pause' });
        print(out, f, [f], ['id', 'kind', 'url', 'paused', 'next_pull_at']);
        return 0;
      }
      case 'feeds:remove': {
        await admin.removeFeed(need(args[0], '<feed-id>'));
        process.stdout.write('feed removed (its products stay)\n');
        return 0;
      }
      case 'users:create': {
        const email = need(args[0], '<email>');
        const role = need(values.role, '--role operator|owner|staff');
        if (role !== 'operator' && role !== 'owner' && role !== 'staff') {
          throw new AppError(400, 'usage', '--role is operator, owner or staff');
        }
        const password = await readPassword();
        const user = await admin.createConsoleUser({ email, password, role, merchant: values.merchant });
        print(out, user, [user], ['id', 'email', 'role', 'merchant_id']);
        return 0;
      }
      case 'leads:purge': {
        const { purged, retention_days } = await admin.purgeLeads();
        process.stdout.write(`${purged} lead(s) older than ${retention_days} days purged\n`);
        return 0;
      }
      default: {
        // catalog:import
        const file = need(args[0], '<file>');
        const bar = progressBar('importing');
        const summary = await importCatalog(admin.database().db, readRows(file, bar.update), {
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
    }
  } finally {
    await admin.close();
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
  try {
    return await run(argv, config);
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`);
    return 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main();
}
