/**
 * The attacker of bench/attack-load.ts, in a process of its own so that its
 * work (60 KB bodies, 16 connections) never stalls the honest client's clock:
 *   node --import tsx bench/attacker.ts <url> <key> <rate> <seconds> <rounds>
 * Builds every body first, then for each round waits for a line on stdin and
 * answers one line of JSON: the answers' status codes and their counts.
 */
import { createInterface } from 'node:readline';
import type autocannon from 'autocannon';
import { heavyRows, wordMaker } from './heavy-rows.ts';
import { run } from './score-endpoint.ts';

const [url, key, rateArg, secondsArg, roundsArg] = process.argv.slice(2);
const rate = Number(rateArg);
const seconds = Number(secondsArg);
const rounds = Number(roundsArg);
const word = wordMaker(11);

/**
 * The attacker's requests, built before any is sent (building 60 KB of made-up text takes
 * milliseconds, and would stall the honest client's clock in this same process): every row of
 * every body is new text, and no body is sent twice.
 */
export function attackStream(key: string, path: string, count: number): autocannon.Request[] {
  const bodies = Array.from({ length: count }, () =>
    JSON.stringify({
      api_key: key,
      quiz: { families: ['oud'] },
      catalog_mode: 'inline',
      inline_catalog: heavyRows(word),
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

// every row of every body new text, and no body sent twice in the whole run
const requests = attackStream(key as string, '/api/widget/score', Math.ceil(rate * seconds * rounds * 1.2));
const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
let done = 0;
for await (const _ of lines) {
  const result = await run({ url: url as string, connections: 16, overallRate: rate, duration: seconds, requests });
  const answers: Record<string, number> = {};
  for (const [code, n] of Object.entries(result.statusCodeStats ?? {})) answers[code] = n.count ?? 0;
  process.stdout.write(`${JSON.stringify(answers)}\n`);
  if (++done >= rounds) break;
}
process.exit(0);
