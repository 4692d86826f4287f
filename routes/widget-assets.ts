import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync, constants as zlib } from 'node:zlib';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ALWAYS_SENT, ANY_OPERATION, errorResponses, PATH_PARAM, REQUEST_ID_HEADER } from '../contracts/errors.ts';
import { AppError } from '../lib/errors.ts';
import { parseScentImageQuery, scentImageSvg } from '../scoring/scent-image.ts';
import { ensureWidgetBuilt, WIDGET_DIST, WIDGET_FILES } from '../widget/build.ts';

/**
 * The widget files under /widget/v1/, from memory, precompressed.
 *
 * `sillage.js` and `client.mjs` are the stable names a store's script tag
 * uses: cached an hour and then revalidated by ETag in the background, so a
 * fix reaches every store within the hour. Each file is also served under a
 * content-hashed name (`sillage.3f9a….js`), cached for a year as immutable,
 * for stores that pin a build with Subresource Integrity (see manifest.json).
 */
export const STABLE_CACHE = 'public, max-age=3600, stale-while-revalidate=86400';
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';

interface Asset {
  body: Buffer;
  gzip: Buffer;
  /** compressed at its first request: brotli's best quality is about 100 ms of a start's time for every file */
  br: () => Buffer;
  etag: string;
  hashedName: string;
  integrity: string;
  immutable: boolean;
}

function asset(name: string, body: Buffer): Asset {
  const hex = createHash('sha256').update(body).digest('hex');
  const dot = name.indexOf('.');
  let br: Buffer | null = null;
  return {
    body,
    gzip: gzipSync(body, { level: 9 }),
    br: () => {
      br ??= brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } });
      return br;
    },
    etag: `"${hex.slice(0, 32)}"`,
    hashedName: `${name.slice(0, dot)}.${hex.slice(0, 12)}${name.slice(dot)}`,
    integrity: `sha384-${createHash('sha384').update(body).digest('base64')}`,
    immutable: false,
  };
}

export function loadAssets(dist = WIDGET_DIST): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of WIDGET_FILES) {
    const a = asset(name, readFileSync(join(dist, name)));
    assets.set(name, a);
    assets.set(a.hashedName, { ...a, immutable: true });
  }
  const manifest = {
    files: Object.fromEntries(
      WIDGET_FILES.map((name) => {
        const a = assets.get(name) as Asset;
        return [
          name,
          { hashed: a.hashedName, integrity: a.integrity, bytes: a.body.length, gzip_bytes: a.gzip.length },
        ];
      }),
    ),
  };
  assets.set('manifest.json', asset('manifest.json', Buffer.from(JSON.stringify(manifest, null, 2))));
  return assets;
}

function contentType(name: string) {
  return name.endsWith('.json') ? 'application/json; charset=utf-8' : 'text/javascript; charset=utf-8';
}

/** br, then gzip, then none — by what the client accepts (q=0 refuses). */
function pickEncoding(header: string | undefined): 'br' | 'gzip' | null {
  if (!header) return null;
  const accepted = new Set(
    header
      .split(',')
      .map((part) => part.trim().split(';'))
      .filter(([, q]) => !q || !/^q=0(\.0*)?$/.test(q.trim()))
      .map(([name]) => (name ?? '').trim().toLowerCase()),
  );
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip')) return 'gzip';
  return null;
}

const FILE_HEADERS = {
  etag: { type: 'string', description: 'The version of the file, for `If-None-Match`', [ALWAYS_SENT]: true },
  'cache-control': {
    type: 'string',
    description: 'A year for versioned files; revalidate for the others',
    [ALWAYS_SENT]: true,
  },
} as const;

const widgetAssets: FastifyPluginAsyncTypebox = async (app) => {
  const built = await ensureWidgetBuilt();
  if (built) app.log.info('built the widget files (they were missing or older than their sources)');
  const assets = loadAssets();

  app.get(
    '/widget/v1/scent.svg',
    {
      schema: {
        operationId: 'getScentImage',
        tags: ['widget files'],
        // public: an <img> sends no key
        security: [],
        summary: "A product's picture when it has none: its scent's colours, its house and name",
        description:
          "The score answer's `image_url` for a product with no image of its own or of its perfume. Bands of its strongest accords' colours, each as wide as its weight, and its house and name as words (Arabic shaped, right to left). A pure function of the query, so cached for a year; no script, no external reference.",
        querystring: Type.Object(
          {
            a: Type.String({
              maxLength: 200,
              description: 'Up to four accords, strongest first, as name:weight (0–100), comma-separated',
              examples: ['oud:100,amber:80,saffron:60'],
            }),
            h: Type.String({ maxLength: 80, description: 'The house' }),
            n: Type.String({ maxLength: 120, description: 'The product name' }),
            v: Type.Optional(
              Type.String({
                maxLength: 8,
                description:
                  "The drawing's version, which the score answer's URL carries: a picture is cached for a year by its URL, so a new way of drawing it is a new URL",
                examples: ['2'],
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description: 'The picture (SVG)',
            headers: { ...REQUEST_ID_HEADER, ...FILE_HEADERS },
            content: { 'image/svg+xml': { schema: Type.String() } },
          },
          ...errorResponses([...ANY_OPERATION, 'validation_failed', 'unknown_field', 'unstorable_text']),
        },
      },
    },
    async (request, reply) => {
      const { a, h, n } = request.query;
      const input = parseScentImageQuery(a, h, n);
      if (!input)
        throw new AppError(
          400,
          'validation_failed',
          'a: up to four accords of the vocabulary as name:weight, comma-separated',
          [{ path: '/querystring/a', message: 'up to four accords of the vocabulary as name:weight (0–100)' }],
        );
      const svg = scentImageSvg(input);
      reply
        .header('content-type', 'image/svg+xml; charset=utf-8')
        .header('cache-control', IMMUTABLE_CACHE)
        .header('etag', `"${createHash('sha256').update(svg).digest('hex').slice(0, 32)}"`)
        .header('access-control-allow-origin', '*')
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
        .header('x-content-type-options', 'nosniff');
      return reply.send(svg);
    },
  );

  app.get(
    '/widget/v1/:file',
    {
      schema: {
        operationId: 'getWidgetFile',
        tags: ['widget files'],
        // public: no credentials
        security: [],
        summary: 'The embeddable widget (sillage.js), the headless client (client.mjs) and their manifest',
        description:
          'Compressed with br or gzip as `Accept-Encoding` allows. Versioned files (their name holds their hash) are cached for a year; `sillage.js` and the manifest are revalidated with `ETag`.',
        params: Type.Object({ file: Type.String({ maxLength: 100 }) }),
        response: {
          200: {
            description: 'The file: JavaScript, or the manifest (JSON) naming the current versioned files',
            headers: { ...REQUEST_ID_HEADER, ...FILE_HEADERS },
            content: {
              'text/javascript': { schema: Type.String() },
              'application/json': { schema: Type.Object({}, { additionalProperties: true }) },
            },
          },
          304: {
            description: 'Not modified: the copy named by `If-None-Match` is current',
            headers: { ...REQUEST_ID_HEADER, ...FILE_HEADERS },
            type: 'null',
          },
          ...errorResponses([...PATH_PARAM, ...ANY_OPERATION, 'validation_failed', 'unstorable_text', 'not_found']),
        },
      },
    },
    async (request, reply) => {
      const a = assets.get(request.params.file);
      if (!a) throw new AppError(404, 'not_found', `No widget file named "${request.params.file.slice(0, 100)}"`);
      reply
        .header('content-type', contentType(request.params.file))
        .header('cache-control', a.immutable ? IMMUTABLE_CACHE : STABLE_CACHE)
        .header('etag', a.etag)
        .header('vary', 'Accept-Encoding')
        .header('access-control-allow-origin', '*')
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('x-content-type-options', 'nosniff');
      const match = request.headers['if-none-match'];
      if (match?.split(',').some((t) => t.trim().replace(/^W\//, '') === a.etag)) {
        return reply.code(304).send();
      }
      const encoding = pickEncoding(request.headers['accept-encoding']);
      if (encoding) reply.header('content-encoding', encoding);
      return reply.send(encoding === 'br' ? a.br() : encoding === 'gzip' ? a.gzip : a.body);
    },
  );
};

export default widgetAssets;
