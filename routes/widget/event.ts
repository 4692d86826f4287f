import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../contracts/common.ts';
import { EventRequestSchema, EventResponseSchema } from '../../contracts/widget.ts';
import { MAX_REQUEST_BYTES, validateEvents } from '../../events/validate.ts';
import { depthLimitedJsonParser } from '../../http/json-body.ts';
import { AppError } from '../../lib/errors.ts';
import { widgetKeyOf } from '../../plugins/app/widget-key.ts';
import { widgetRateLimit } from '../../plugins/external/rate-limit.ts';

const event: FastifyPluginAsyncTypebox = async (app) => {
  // navigator.sendBeacon posts text/plain without a CORS preflight: its body is the same JSON
  // read as the JSON bodies are: nesting limit, prototype keys refused
  app.addContentTypeParser(
    'text/plain',
    { parseAs: 'string', bodyLimit: MAX_REQUEST_BYTES },
    depthLimitedJsonParser(app),
  );

  app.post(
    '/event',
    {
      bodyLimit: MAX_REQUEST_BYTES,
      config: { rateLimit: widgetRateLimit('event') },
      schema: {
        tags: ['widget'],
        summary: 'Records widget lifecycle, click, lead and purchase events',
        description:
          'One event inline or a batch of 1–50, as application/json or text/plain holding JSON (navigator.sendBeacon). Each event is validated for its type; one bad event refuses the whole request. 202 means committed to the database; a resent event (same event_id, or a purchase with the same order_id) is stored once and counted as a duplicate. At most 32 KB an event and 64 KB a request. 1000 requests a minute per key and client address.',
        security: [{ widgetKey: [] }],
        body: EventRequestSchema,
        response: { 202: EventResponseSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const key = widgetKeyOf(request);
      const result = validateEvents(request.body as Record<string, unknown>, new Date());
      if (!result.ok) {
        const first = result.problems[0];
        throw new AppError(
          400,
          'invalid_event',
          `Invalid event: ${first?.path.replace(/^\/body\/?/, '') || 'body'}: ${first?.message}`,
          result.problems.slice(0, 20),
        );
      }
      const stored = await app.eventWriter.write({
        merchantId: key.merchant.id,
        keyId: key.id,
        test: key.mode === 'test',
        events: result.events,
      });
      app.metrics.eventsIngested.inc(stored.accepted);
      return reply.status(202).send(stored);
    },
  );
};

export default event;
