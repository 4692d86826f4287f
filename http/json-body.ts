/**
 * Request bodies in JSON, read with a nesting limit. JSON.parse accepts any
 * depth, but what reads the value afterwards — validation, JSON.stringify, a
 * database driver — recurses, and a body of 1 MB of `[` or an event whose
 * data is nested 6,000 deep ended as a 500. No body of ours nests deeper than
 * a few levels; MAX_JSON_DEPTH leaves room and refuses the rest before
 * parsing, in one pass over the text.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.ts';

export const MAX_JSON_DEPTH = 32;

/** Whether a JSON text opens more than `max` arrays or objects inside each other (strings skipped). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}

type Done = (err: Error | null, body?: unknown) => void;

/**
 * A body parser: Fastify's own JSON parser (prototype poisoning refused, its
 * errors for empty and malformed bodies) behind the nesting limit.
 */
export function depthLimitedJsonParser(app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'error');
  return (request: FastifyRequest, body: string | Buffer, done: Done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      done(new AppError(400, 'invalid_json', `Body nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels`));
      return;
    }
    parse(request, text, done);
  };
}
