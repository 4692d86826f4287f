import { randomUUID } from 'node:crypto';

/** What a token may hold: characters that read the same inside a JSON string and in a URL. */
const SPLICEABLE = /^[0-9A-Za-z-]{1,64}$/;

/**
 * JSON answers that differ from one request to the next only by a token (a
 * session id). Each is rendered once per owner and variant — by the route's
 * own schema serializer — and kept as UTF-8 pieces around the token; a request
 * then costs one copy of a few kilobytes. Serialising a 3–4 KB answer and
 * writing it out as a string costs more than everything else a cached score
 * request does (docs/benchmarks.md).
 *
 * Owners are held weakly: when an answer leaves its catalog's cache, its
 * templates go with it.
 */
export class JsonTemplates<Owner extends object> {
  /** stands in for the token while rendering: random, so no data can contain it by chance */
  private readonly marker = randomUUID();
  /**
   * Not a lib/cache.ts Cache per owner: owners are cached answers (up to 500 in
   * each of up to 1000 merchant catalogs), each with a handful of variants
   * (locale × key mode), so a Cache each could mean hundreds of thousands of
   * lru-cache instances in the inventory, each registered in time linear in
   * their number. The owner's own lifetime is the real bound; the per-owner
   * limit only stops a renderer whose variant string keeps changing.
   */
  private readonly byOwner = new WeakMap<Owner, Map<string, Buffer[]>>();

  constructor(private readonly maxVariantsPerOwner = 16) {}

  /**
   * The bytes of `render(token)`, or null when this token cannot be spliced
   * (the caller renders the answer the usual way).
   */
  bytes(owner: Owner, variant: string, token: string, render: (token: string) => string): Buffer | null {
    if (!SPLICEABLE.test(token)) return null;
    let variants = this.byOwner.get(owner);
    if (!variants) {
      variants = new Map();
      this.byOwner.set(owner, variants);
    }
    let pieces = variants.get(variant);
    if (!pieces) {
      const candidate = render(this.marker)
        .split(this.marker)
        .map((s) => Buffer.from(s, 'utf8'));
      // Only a template that reproduces the real rendering is kept: a renderer that
      // transformed the token (escaped, encoded, cased it) would otherwise leak the marker.
      const direct = Buffer.from(render(token), 'utf8');
      if (!join(candidate, token).equals(direct)) return direct;
      pieces = candidate;
      if (variants.size >= this.maxVariantsPerOwner) variants.clear();
      variants.set(variant, pieces);
    }
    return join(pieces, token);
  }
}

function join(pieces: readonly Buffer[], token: string): Buffer {
  // the token is ASCII (SPLICEABLE): one byte per character
  let length = token.length * (pieces.length - 1);
  for (const p of pieces) length += p.length;
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0) at += out.write(token, at, 'latin1');
    const piece = pieces[i] as Buffer;
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}
