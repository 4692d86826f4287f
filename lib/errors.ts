/**
 * The one error type handlers and services throw. The error handler turns it
 * into `{ error, code, details? }` with its status; anything else is a 500
 * whose details stay in the log.
 */
export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    /** extra response headers, e.g. Retry-After on a 503 */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const badRequest = (code: string, message: string, details?: ErrorDetail[]) =>
  new AppError(400, code, message, details);
export const notFound = (code: string, message: string) => new AppError(404, code, message);
export const conflict = (code: string, message: string) => new AppError(409, code, message);

/** SQLSTATE of a PostgreSQL error, looking through driver wrappers (DrizzleQueryError keeps it in `cause`). */
export function pgErrorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

/**
 * True when the error means "the database could not be reached" rather than
 * "the query was wrong": connection failures, server shutting down or starting
 * up, too many connections, a statement or idle transaction ended by its
 * timeout (SQLSTATE classes 08, 57P, 53300, 57014, 25P03).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (CONNECTION_ERROR_CODES.has(code)) return true;
      // 57014: a statement ended by statement_timeout (the database too slow to answer in time);
      // 25P03: a session ended for idling inside a transaction
      if (/^08/.test(code) || /^57P0[1-4]$/.test(code) || code === '53300' || code === '57014' || code === '25P03') {
        return true;
      }
    }
    const message = (e as { message?: unknown }).message;
    if (
      typeof message === 'string' &&
      /database ping timed out|PGlite is closed|embedded database.s thread ended/i.test(message)
    )
      return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
