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
 */
import type autocannon from 'autocannon';
import { startBenchServer } from './child.ts';
import { requestStream, run } from './score-endpoint.ts';
import { median } from './stats.ts';

const HONEST_RATE = Number(process.env.BENCH_HONEST_RATE) || 100;
const ATTACK_RATE = Number(process.env.BENCH_ATTACK_RATE) || 20;
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 3;
const CONSONANTS = 'bcdfghjklmnpqrstvwxz';

let seed = 11;
const word = (n: number) => {
  let w = '';
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    w += CONSONANTS[Math.floor((seed / 2 ** 31) * 20)];
  }
  return w;
};

/**
 * The attacker's requests, built before any is sent (building 60 KB of made-up text takes
 * milliseconds, and would stall the honest client's clock in this same process): every row of
 * every body is new text, and no body is sent twice.
 */
function attackStream(key: string, path: string, count: number): autocannon.Request[] {
  const bodies = Array.from({ length: count }, () =>
    JSON.stringify({
      api_key: key,
      quiz: { families: ['oud'] },
      catalog_mode: 'inline',
      inline_catalog: Array.from({ length: 200 }, (_, i) => ({
        merchant_product_id: `p${i}`,
        name: Array.from({ length: 24 }, () => word(11))
          .join(' ')
          .slice(0, 300),
        house: 'Lattafa',
      })),
    }),
  );
  let n = 0;
  return [
    {
      setupRequest: (req) => {
        n++;
        return {
          ...req,
          method: 'POST',
          path,
          body: bodies[n % count],
          headers: {
            'content-type': 'application/json',
            'x-widget-version': 'v1',
            'x-forwarded-for': `172.16.${(n >> 8) & 255}.${n & 255}`,
          },
        };
      },
    },
  ];
}

export async function runAttackLoadBench(log: (s: string) => void = console.log, seconds = 10) {
  const service = await startBenchServer<{ port: number; key: string; admin: string }>('service');
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
  const attackRequests = attackStream(
    attackerKey,
    '/api/widget/score',
    Math.ceil(ATTACK_RATE * seconds * (ROUNDS + 1) * 1.2),
  );
  const attack = () =>
    run({
      url,
      connections: 16,
      overallRate: ATTACK_RATE,
      duration: seconds,
      requests: attackRequests,
    });

  try {
    await honest(); // warm up
    const rows: { alone: number; attacked: number; ratio: number; attack: Record<string, number> }[] = [];
    log('| round | honest p99 alone | honest p99 attacked | ratio | honest non-2xx | attacker answers |');
    log('|---|---|---|---|---|---|');
    for (let r = 0; r < ROUNDS; r++) {
      const alone = await honest();
      const [attacked, attacker] = await Promise.all([honest(), attack()]);
      const ratio = attacked.latency.p99 / Math.max(alone.latency.p99, 1);
      const answers: Record<string, number> = {};
      for (const [code, n] of Object.entries(attacker.statusCodeStats ?? {})) answers[code] = n.count ?? 0;
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
      `honest p99 under attack ÷ alone: ${med.toFixed(2)} (median of ${ROUNDS}; honest ${HONEST_RATE}/s, attack ${ATTACK_RATE}/s of 200-row inline scores)`,
    );
    return { ratio: med, rounds: rows };
  } finally {
    service.child.kill('SIGTERM');
  }
}
