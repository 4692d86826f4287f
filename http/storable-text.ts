/**
 * PostgreSQL stores no NUL character in text or jsonb, and jsonb refuses an
 * unpaired UTF-16 surrogate (`"\ud800"`), which JSON can carry. Such input is
 * refused at the door with a 400 naming where it was, rather than failing
 * later inside a write — where, batched with other requests, it would fail
 * theirs too.
 */

/** a key fit to quote back in an error: NUL as \0, lone surrogates as U+FFFD */
function printable(k: string): string {
  return k.replaceAll(String.fromCharCode(0), '\\0').replace(/[\uD800-\uDFFF]/g, '\uFFFD');
}

/** String.prototype.isWellFormed (ES2024, in Node 20): false when a high surrogate is not followed by a low one, or a low one not preceded by a high one */
type WellFormed = { isWellFormed(): boolean };

/**
 * The engine's own checks rather than a regular expression with look-arounds: a megabyte of emoji
 * took the expression 3.6 ms and these 0.8 ms, a megabyte of ASCII 1 ms and 0.01 ms, on the walk
 * every body read before its sender is known goes through (docs/security.md, issue 44).
 */
export function isStorableText(s: string): boolean {
  return (s as unknown as WellFormed).isWellFormed() && !s.includes('\0');
}

/**
 * The path (`/quiz/families/0`, `/events/2/message`) of the first string or
 * object key that cannot be stored, or null. Iterative: any nesting depth
 * that JSON.parse accepted is walked without growing the stack.
 */
export function findUnstorableText(value: unknown): string | null {
  // nearly every body is clean: check it without building a path per value first
  return holdsUnstorableText(value) ? locateUnstorableText(value) : null;
}

/** Values looked at, for the tests that bound the guard's work (a raw body is one value, whatever its size). */
export const storableTextWork = { values: 0 };

/**
 * Bytes, not JSON: a route that reads its body raw (a platform's signed webhook) has a Buffer for a
 * body. Walked as an object it was a key a byte, each a number, so the walk found nothing and a
 * megabyte held the thread about a second, unauthenticated; bytes are one value, and what the route
 * parses from them is its own to check.
 */
const isBytes = (v: object) => ArrayBuffer.isView(v) || v instanceof ArrayBuffer;

function holdsUnstorableText(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    storableTextWork.values++;
    if (typeof v === 'string') {
      if (!isStorableText(v)) return true;
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
    } else if (v !== null && typeof v === 'object' && !isBytes(v)) {
      for (const k in v) {
        if (!isStorableText(k)) return true;
        stack.push((v as Record<string, unknown>)[k]);
      }
    }
  }
  return false;
}

function locateUnstorableText(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop() as [unknown, string];
    if (typeof v === 'string') {
      if (!isStorableText(v)) return path || '/';
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}/${i}`]);
    } else if (v !== null && typeof v === 'object' && !isBytes(v)) {
      for (const k of Object.keys(v)) {
        const at = `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        if (!isStorableText(k)) return `${path}/${printable(k)}`;
        stack.push([(v as Record<string, unknown>)[k], at]);
      }
    }
  }
  return null;
}
