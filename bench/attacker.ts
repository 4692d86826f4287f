/**
 * The attacker of bench/attack-load.ts, in a process of its own so that its
 * work (60 KB bodies, 16 connections) never stalls the honest client's clock:
 *   node --import tsx bench/attacker.ts <url> <key> <rate> <seconds> <rounds> [inline|flood]
 * inline (the default): the heaviest inline scores, with the attacker's own key.
 * flood: no key at all: bodies at each route's limit to the four platforms'
 * webhooks (bytes, with signature headers that could be ones) and to the four
 * widget operations with a junk key (the most http/json-body.ts lets through:
 * new layouts and short strings to their caps, numbers to 60,000 values, the
 * rest a string of emoji), each from a new address.
 * Builds the bodies first, then for each round waits for a line on stdin and
 * answers one line of JSON: the answers' status codes and their counts.
 */
import { createInterface } from 'node:readline';
import type autocannon from 'autocannon';
import { LOOKUP_MAX_BYTES, SCORE_MAX_BYTES, VERIFY_MAX_BYTES } from '../contracts/widget.ts';
import { MAX_REQUEST_BYTES } from '../events/validate.ts';
import { UNAUTHENTICATED_JSON_LIMITS } from '../http/json-body.ts';
import {
  PLATFORM_WEBHOOK_MAX_BYTES,
  SHOPIFY_WEBHOOK_MAX_BYTES,
  ZID_WEBHOOK_MAX_BYTES,
} from '../routes/platforms/shared.ts';
import { heavyRows, wordMaker } from './heavy-rows.ts';
import { run } from './score-endpoint.ts';

const [url, key, rateArg, secondsArg, roundsArg, modeArg] = process.argv.slice(2);
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

const JUNK_KEY = `pk_live_${'x'.repeat(28)}`;
/**
 * the routes flooded, each with its body limit; the webhooks' bodies are bytes never parsed, sent
 * with a signature header that could be one (64 hex digits, base64), so that they are read and
 * their signature checked; Zid's and WooCommerce's name stores that never installed (refused
 * before their body is read: a stranger has no store secret of Zid's)
 */
const FLOODED: { path: string; limit: number; json: boolean; headers?: Record<string, string> }[] = [
  {
    path: '/api/platforms/salla/webhook',
    limit: PLATFORM_WEBHOOK_MAX_BYTES,
    json: false,
    headers: { 'x-salla-signature': '0'.repeat(64) },
  },
  {
    path: '/api/platforms/shopify/webhooks',
    limit: SHOPIFY_WEBHOOK_MAX_BYTES,
    json: false,
    headers: { 'x-shopify-hmac-sha256': 'A'.repeat(43).concat('=') },
  },
  { path: '/api/platforms/zid/webhooks/1', limit: ZID_WEBHOOK_MAX_BYTES, json: false },
  { path: '/api/platforms/woocommerce/webhooks/x', limit: PLATFORM_WEBHOOK_MAX_BYTES, json: false },
  { path: '/api/widget/score', limit: SCORE_MAX_BYTES, json: true },
  { path: '/api/widget/verify', limit: VERIFY_MAX_BYTES, json: true },
  { path: '/api/widget/lookup', limit: LOOKUP_MAX_BYTES, json: true },
  { path: '/api/widget/event', limit: MAX_REQUEST_BYTES, json: true },
];

/**
 * What the limits let through, every name new (`salt`): new layouts and new short strings to just
 * under their caps, then numbers, then a string of emoji to the byte limit. Only the new part is
 * made for each request; the padding is bytes made once (it costs the service the same each time,
 * and this process, which shares the machine's cores with the service, next to nothing).
 */
function floodBody(limit: number, salt: string, pads: Map<number, Buffer>): Buffer {
  const L = UNAUTHENTICATED_JSON_LIMITS;
  const head = `{"api_key":"${JUNK_KEY}","quiz":{"families":["oud"]},"inline_catalog":[`;
  const items: string[] = [];
  let bytes = head.length + 2;
  const add = (item: string) => {
    if (bytes + item.length + 1 > limit - 8) return false;
    items.push(item);
    bytes += item.length + 1;
    return true;
  };
  let values = 0;
  for (let i = 0; i < L.layouts - 50 && add(`{"${salt}${i}":0}`); i++) values += 2;
  for (let i = 0; i < L.shortStrings - 50 && add(`"${salt}${i.toString(36)}"`); i++) values++;
  while (values < L.values - 100 && add('0')) values++;
  const room = Math.floor((limit - bytes - 8) / 4);
  let pad = pads.get(room);
  if (pad === undefined) {
    pad = Buffer.from(room > 0 ? `,"${'😀'.repeat(room)}"` : '');
    pads.set(room, pad);
  }
  return Buffer.concat([Buffer.from(`${head}${items.join(',')}`), pad, Buffer.from(']}')]);
}

/** The flood: the routes in turn, each request from a new address, every JSON body's names new. */
export function floodStream(): autocannon.Request[] {
  const webhookBodies = new Map(FLOODED.map((r) => [r.limit, Buffer.from(`"${'a'.repeat(r.limit - 2)}"`)]));
  const pads = new Map<number, Buffer>();
  let n = 0;
  return [
    {
      setupRequest: (req) => {
        n++;
        const route = FLOODED[n % FLOODED.length] as (typeof FLOODED)[number];
        return {
          ...req,
          method: 'POST',
          path: route.path,
          body: (route.json
            ? floodBody(route.limit, `${n.toString(36)}_`, pads)
            : webhookBodies.get(route.limit)) as unknown as string,
          headers: {
            'content-type': 'application/json',
            'x-forwarded-for': `172.${16 + ((n >> 16) & 15)}.${(n >> 8) & 255}.${n & 255}`,
            ...route.headers,
          },
        };
      },
    },
  ];
}

const requests =
  modeArg === 'flood'
    ? floodStream()
    : // every row of every body new text, and no body sent twice in the whole run
      attackStream(key as string, '/api/widget/score', Math.ceil(rate * seconds * rounds * 1.2));
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
