import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Lang } from '../../console/i18n.ts';
import type { PageContext } from '../../console/views.ts';
import type { Html } from '../../lib/html.ts';
import type { ConsoleUser } from '../../services/console-users.ts';

declare module 'fastify' {
  interface Session {
    userId?: string;
  }
  interface FastifyRequest {
    /** the signed-in console user, set by the console's onRequest hook */
    consoleUser: ConsoleUser | null;
    consoleLang: Lang;
  }
}

/**
 * The policy of every console page: nothing but the console's own script and stylesheet, no
 * inline code, no other origin (no fonts, scripts or analytics from elsewhere), no framing.
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export function sendPage(reply: FastifyReply, page: Html, status = 200) {
  return reply
    .code(status)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CONSOLE_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
      'x-frame-options': 'DENY',
      'cache-control': 'no-store',
    })
    .send(page.value);
}

/** Whom a CSRF token is made for before anyone signed in (the sign-in and setup forms). */
export const ANONYMOUS = 'anonymous';

/** The parts of a page's context every route fills the same way. */
export function pageContext(
  request: FastifyRequest,
  reply: FastifyReply,
  extra: Partial<PageContext> = {},
): PageContext {
  const url = request.url;
  const q = url.indexOf('?');
  const query = new URLSearchParams(q >= 0 ? url.slice(q + 1) : '');
  query.delete('lang');
  query.delete('done');
  return {
    lang: request.consoleLang,
    path: q >= 0 ? url.slice(0, q) : url,
    query: query.toString(),
    csrf: reply.generateCsrf({ userInfo: request.consoleUser?.id ?? ANONYMOUS } as never),
    viewer: request.consoleUser ? { email: request.consoleUser.email, role: request.consoleUser.role } : null,
    ...extra,
  };
}
