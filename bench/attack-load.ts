/**
 * Honest shops under attack: npm run bench -- attack-load
 * One service process (in-memory PGlite, or BENCH_DATABASE_URL) with an
 * honest merchant of 1,000 synced products. An honest storefront sends synced
 * score requests at a steady BENCH_HONEST_RATE (100 a second) from 20,000
 * shopper addresses; its latency is measured alone, then while an attacker's
 * key sends the heaviest inline scores it can build (200 rows of 24 made-up
 * words, every text new so no cache helps) at BENCH_ATTACK_RATE (20 a second,
 * each from a new address: the per-key-and-address quota never stops it).
 * Rounds alternate alone / attacked (BENCH_ROUNDS, 3); the figure is the
 * honest p99 under attack over the honest p99 alone, per round, and its
 * median. Goal (the attack-run issue): at most 2.
 *
 * npm run bench -- attack-load-webhooks: the same, the attack a flood with no
 * key at all (bench/attacker.ts flood): bodies at each route's limit to the four
 * platforms' webhooks (a megabyte, never parsed) and to the four widget
 * operations with a junk key (the most http/json-body.ts lets through), at
 * BENCH_ATTACK_RATE, each from a new address; the four platform apps are on,
 * so each webhook's signature is checked over its whole body (issue 44).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startBenchServer } from './child.ts';
import { requestStream, run } from './score-endpoint.ts';
import { median } from './stats.ts';

const HONEST_RATE = Number(process.env.BENCH_HONEST_RATE) || 100;
const ATTACK_RATE = Number(process.env.BENCH_ATTACK_RATE) || 20;
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 3;
export async function runAttackLoadBench(
  log: (s: string) => void = console.log,
  seconds = 10,
  mode: 'inline' | 'flood' = 'inline',
) {
  const service = await startBenchServer<{ port: number; key: string; admin: string }>(
    'service',
    mode === 'flood' ? { BENCH_PLATFORMS: '1' } : {},
  );
  const { port, key, admin } = service.info;
  const url = `http://127.0.0.1:${port}`;
  const adminHeaders = { authorization: `Bearer ${admin}`, 'content-type': 'application/json' };
  const merchant = (await (
    await fetch(`${url}/api/admin/merchants`, {
      method: 'POST',
      headers: adminHeaders,
      body: JSON.stringify({ name: 'Attacker', slug: `attacker-${process.pid}` }),
    })
  ).json()) as { id: string };
  const attackerKey = (
    (await (
      await fetch(`${url}/api/admin/merchants/${merchant.id}/keys`, {
        method: 'POST',
        headers: adminHeaders,
        body: JSON.stringify({ mode: 'live', allowed_origins: [] }),
      })
    ).json()) as { key: string }
  ).key;

  const honest = () =>
    run({
      url,
      connections: 8,
      overallRate: HONEST_RATE,
      duration: seconds,
      requests: requestStream(key, '/api/widget/score'),
    });
  // the attacker runs in a process of its own (bench/attacker.ts): its work must not stall this
  // process, whose clock times the honest requests
  const attacker = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'bench/attacker.ts',
      url,
      attackerKey,
      String(ATTACK_RATE),
      String(seconds),
      String(ROUNDS),
      mode,
    ],
    { cwd: join(import.meta.dirname, '..'), stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const attackerLines = createInterface({ input: attacker.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const nextLine = async () => (await attackerLines.next()).value as string;
  if ((await nextLine()) !== 'ready') throw new Error('the attacker did not start');
  const attack = async () => {
    attacker.stdin?.write('go\n');
    return JSON.parse(await nextLine()) as Record<string, number>;
  };

  try {
    await honest(); // warm up
    const rows: { alone: number; attacked: number; ratio: number; attack: Record<string, number> }[] = [];
    log('| round | honest p99 alone | honest p99 attacked | ratio | honest non-2xx | attacker answers |');
    log('|---|---|---|---|---|---|');
    for (let r = 0; r < ROUNDS; r++) {
      const alone = await honest();
      const [attacked, answers] = await Promise.all([honest(), attack()]);
      const ratio = attacked.latency.p99 / Math.max(alone.latency.p99, 1);
      rows.push({ alone: alone.latency.p99, attacked: attacked.latency.p99, ratio, attack: answers });
      log(
        `| ${r + 1} | ${alone.latency.p99} ms | ${attacked.latency.p99} ms | ${ratio.toFixed(2)} | ${alone.non2xx + attacked.non2xx} | ${Object.entries(
          answers,
        )
          .map(([c, n]) => `${c}: ${n}`)
          .join(', ')} |`,
      );
    }
    const med = median(rows.map((r) => r.ratio));
    log(
      `honest p99 under attack ÷ alone: ${med.toFixed(2)} (median of ${ROUNDS}; honest ${HONEST_RATE}/s, attack ${ATTACK_RATE}/s of ${
        mode === 'flood'
          ? 'unauthenticated bodies at their limit (webhooks, widget operations with a junk key)'
          : '200-row inline scores'
      })`,
    );
    return { mode, ratio: med, rounds: rows };
  } finally {
    attacker.kill('SIGTERM');
    service.child.kill('SIGTERM');
  }
}
