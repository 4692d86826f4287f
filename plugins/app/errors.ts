import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { UUID_PATTERN } from '../../contracts/common.ts';
import { AppError, type ErrorDetail, isDatabaseUnavailable } from '../../lib/errors.ts';

/**
 * One error format for every non-2xx answer: `{ error, code, details? }`.
 * Client errors say what was wrong; server errors are logged with the request
 * and answered with a generic sentence, never a stack trace.
 */

/** Fastify's own error codes, renamed for clients. */
const FASTIFY_CODES: Record<string, { code: string; message?: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload_too_large', message: 'Request body is too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    message: 'Unsupported Content-Type: send application/json',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'invalid_content_length',
    message: 'Content-Length does not match the body',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'invalid_json', message: 'Body is empty but Content-Type is application/json' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid_json', message: 'Body is not valid JSON' },
  FST_ERR_CTP_INVALID_TYPE: { code: 'unsupported_media_type', message: 'Invalid Content-Type header' },
  FST_ERR_CTP_EMPTY_TYPE: { code: 'unsupported_media_type', message: 'Content-Type header is empty' },
  FST_ERR_CTP_INVALID_CHARSET: { code: 'unsupported_media_type', message: 'Unsupported charset' },
  FST_ERR_BAD_URL: { code: 'bad_url', message: 'Malformed URL' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'uri_too_long', message: 'A path segment is longer than 200 characters' },
  FST_ERR_ASYNC_CONSTRAINT: { code: 'bad_request', message: 'Bad request' },
  // the console's forms (@fastify/csrf-protection)
  FST_CSRF_MISSING_SECRET: {
    code: 'invalid_csrf_token',
    message: 'The form did not come from a console page: reload the page and send it again',
  },
  FST_CSRF_INVALID_TOKEN: {
    code: 'invalid_csrf_token',
    message: 'The form has expired or did not come from a console page: reload the page and send it again',
  },
};

const STATUS_CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

/** The answer to a client error Fastify raised: its code renamed for clients, the status's code otherwise. */
function fastifyClientError(error: FastifyError, status: number, fallback: string) {
  const known = error.code ? FASTIFY_CODES[error.code] : undefined;
  return { error: known?.message ?? fallback, code: known?.code ?? STATUS_CODES[status] ?? 'bad_request' };
}

/** A JSON-pointer-ish path for a validation error: `/body/quiz/season`. */
function validationDetails(err: FastifyError): ErrorDetail[] {
  const context = err.validationContext ?? 'body';
  return (err.validation ?? []).slice(0, 20).map((v) => {
    let path = `/${context}${v.instancePath}`;
    const params = v.params as Record<string, unknown>;
    if (typeof params.missingProperty === 'string') path += `/${params.missingProperty}`;
    if (typeof params.additionalProperty === 'string') path += `/${params.additionalProperty}`;
    let message = v.message ?? 'is invalid';
    if (Array.isArray(params.allowedValues)) message += `: ${params.allowedValues.join(', ')}`;
    if (typeof params.additionalProperty === 'string') message = 'is not an allowed property';
    // a widget developer reads "a UUID", not the pattern that says so
    if (params.pattern === UUID_PATTERN) message = 'must be a UUID (8-4-4-4-12 hexadecimal digits)';
    return { path, message };
  });
}

export default fp(
  async (app) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      if (error instanceof AppError) {
        if (error.statusCode >= 500) request.log.error({ err: error }, error.message);
        if (error.headers) reply.headers(error.headers);
        return reply.status(error.statusCode).send({
          error: error.message,
          code: error.code,
          ...(error.details ? { details: error.details } : {}),
        });
      }

      if (error.validation) {
        const details = validationDetails(error);
        const first = details[0];
        const unknown = (error.validation[0]?.params as { additionalProperty?: unknown } | undefined)
          ?.additionalProperty;
        if (typeof unknown === 'string' && first) {
          return reply.status(400).send({
            error: `Unknown field: ${first.path.replace(/^\/(body\/?)?/, '')} is not a field of this operation`,
            code: 'unknown_field',
            details,
          });
        }
        return reply.status(400).send({
          error: first
            ? `Invalid request: ${first.path.replace(/^\/body\/?/, '') || 'body'} ${first.message}`
            : 'Invalid request',
          code: 'validation_failed',
          details,
        });
      }

      // the client went away mid-request (its body cut short): its connection error is not the database's
      if (request.raw.aborted || (request.raw.destroyed && !request.raw.complete)) {
        request.log.info({ code: error.code }, 'client closed the request before it was read');
        return reply
          .status(400)
          .send({ error: 'The request was closed before it arrived', code: 'client_closed_request' });
      }

      if (isDatabaseUnavailable(error)) {
        request.log.error({ err: error }, 'database unavailable');
        return reply
          .status(503)
          .header('retry-after', '5')
          .send({ error: 'The service is temporarily unavailable, retry shortly', code: 'database_unavailable' });
      }

      const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
      if (status >= 500) {
        request.log.error({ err: error }, 'request failed');
        return reply.status(status).send({ error: 'Internal server error', code: 'internal_error' });
      }
      if (status === 400 && error instanceof SyntaxError) {
        return reply.status(400).send({ error: 'Body is not valid JSON', code: 'invalid_json' });
      }
      return reply.status(status).send(fastifyClientError(error, status, error.message));
    });

    const routeNotFound = (request: FastifyRequest) =>
      new AppError(
        404,
        'not_found',
        `Route ${request.method} ${(request.url.split('?')[0] ?? '').slice(0, 200)} not found`,
      );
    app.setNotFoundHandler((request, reply) => {
      const { message, code } = routeNotFound(request);
      reply.status(404).send({ error: message, code });
    });
    // a body sent to no route is never read (it was parsed, up to 1 MiB of JSON): the same answer, before it
    app.addHook('preParsing', (request, _reply, payload, done) => {
      if (request.is404) done(routeNotFound(request));
      else done(null, payload);
    });
  },
  { name: 'errors' },
);

/**
 * Errors the router finds before any route (a malformed URL, a path segment
 * over 200 characters): in the same shape as every other error.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  // answered before any route, so before the hook that names every answer's request
  reply.header('x-request-id', request.id);
  reply.status(status).send(fastifyClientError(error, status, 'Bad request'));
}

/**
 * Errors below HTTP parsing (a request too slow, headers too large, bytes that
 * are not HTTP) never reach a route: Node hands the socket over. They get the
 * same JSON shape, then the connection is closed.
 */
export function clientErrorHandler(
  this: { log: { debug(obj: object, msg: string): void } },
  err: NodeJS.ErrnoException,
  socket: import('node:net').Socket,
) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, error] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'request_timeout', 'The request did not arrive in time']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'headers_too_large', 'Request headers are too large']
        : [400, 'bad_request', 'Malformed HTTP request'];
  this.log.debug({ err, code }, 'client error before routing');
  const body = JSON.stringify({ error, code });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${error}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
