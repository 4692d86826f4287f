import type { FastifyReply, FastifyRequest } from 'fastify';
import { loggableUrl } from '../lib/log-url.ts';

/**
 * An onSend hook that holds each finished answer until the end of the current
 * event-loop turn (setImmediate), then writes every answer held, in the order
 * they were finished.
 *
 * Under load one turn reads many requests. Written as each is answered, every
 * answer that reaches an idle peer (a proxy on the same host, a load
 * generator) makes the kernel wake that peer on another core, inside our
 * write call: ~8 µs of a ~75 µs score request on the 2-core bench machine.
 * Written together, the first wakes the peer and the rest find it awake. An
 * answer waits at most for the rest of its turn (the other requests read with
 * it); with one request in a turn it is written at once (docs/decisions.md,
 * docs/benchmarks.md).
 *
 * Until it is written, Fastify sees the reply as not sent: a handler that
 * sends and then lets its promise resolve to undefined makes Fastify send it
 * again. The first send wins; the second is dropped with a warning, as Fastify
 * itself does for a reply already written.
 */
export function writeAtEndOfTurn(
  _request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (err: Error | null, payload?: unknown) => void,
): void {
  if (held.length === 0) setImmediate(writeHeld);
  held.push(reply, payload, done);
}

/** reply, payload, done, reply, payload, done…: three slots an answer, no object each */
let held: unknown[] = [];

function writeHeld(): void {
  const batch = held;
  held = [];
  for (let i = 0; i < batch.length; i += 3) {
    const reply = batch[i] as FastifyReply;
    if (reply.raw.headersSent) {
      reply.log.warn({ url: loggableUrl(reply.request.url) }, 'reply already sent: a second send was dropped');
      continue;
    }
    try {
      (batch[i + 2] as (err: Error | null, payload?: unknown) => void)(null, batch[i + 1]);
    } catch (err) {
      // one answer that fails to go out must not keep the others of its turn from going
      reply.log.error({ err }, 'could not write the answer');
    }
  }
}
