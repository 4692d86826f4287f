import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type TObject, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { errorResponses, success, WIDGET_OPERATION } from '../../contracts/errors.ts';
import { EVENT_EXAMPLE } from '../../contracts/examples.ts';
import { EventRequestSchema, EventResponseSchema } from '../../contracts/widget.ts';
import {
  EVENT_TYPES,
  EventSchemas,
  MAX_EVENTS,
  MAX_REQUEST_BYTES,
  type NormalizedEvent,
  validateEvents,
} from '../../events/validate.ts';
import { depthLimitedJsonParser } from '../../http/json-body.ts';
import { databaseTimeout, withDeadline } from '../../lib/deadline.ts';
import { AppError } from '../../lib/errors.ts';
import { toE164 } from '../../lib/phone.ts';
import { createWindowCounter } from '../../lib/window-counter.ts';
import { widgetKeyOf } from '../../plugins/app/widget-key.ts';
import { widgetRateLimit } from '../../plugins/external/rate-limit.ts';
import { documentAs } from '../../plugins/external/swagger.ts';
import { leadContext } from '../../services/leads.ts';
import type { SessionKey } from '../../services/sessions.ts';

/**
 * The body as the document publishes it: each event type with its own fields, `type` telling them
 * apart, one event inline or a batch. The route takes any object and checks each event against
 * its type itself (events/validate.ts), answering 400 invalid_event with the path of what is wrong.
 */
const EventOfType = Type.Unsafe<unknown>({
  // exactly one matches: `type` is a constant of each
  oneOf: EVENT_TYPES.map((t) =>
    Type.Object({ ...(EventSchemas[t] as TObject).properties, type: Type.Literal(t) }, { title: t }),
  ),
  description: 'One event: its type and the fields that type defines (fields it does not define are dropped)',
});
const EventRequestDocument = Type.Union(
  [
    Type.Object(
      {
        api_key: EventRequestSchema.properties.api_key,
        session_id: EventRequestSchema.properties.session_id,
        events: Type.Array(EventOfType, { minItems: 1, maxItems: MAX_EVENTS }),
      },
      { title: 'batch', additionalProperties: false },
    ),
    Type.Intersect([EventOfType, Type.Object({ api_key: EventRequestSchema.properties.api_key })], {
      title: 'one event inline',
    }),
  ],
  { examples: [EVENT_EXAMPLE.request] },
);

/** Leads one score session may give, and one client address, an hour (per instance). */
export const LEADS_PER_SESSION = 3;
export const LEADS_PER_ADDRESS = 20;

const event: FastifyPluginAsyncTypebox = async (app) => {
  const leadsBySession = createWindowCounter({ name: 'leads-per-session', max: 100_000, windowMs: 3_600_000 });
  const leadsByAddress = createWindowCounter({ name: 'leads-per-address', max: 100_000, windowMs: 3_600_000 });
  /**
   * A lead is a shopper's answer to a quiz they took: it must name the session
   * of a score answered for this very key (not another merchant's, nor the
   * test key's for a live one), and a session and an address give only a few.
   * Its phone is read as a number of the merchant's country and kept in E.164;
   * it takes the session's language and the recommendations it showed.
   */
  async function checkLeads(request: FastifyRequest, key: SessionKey, events: readonly NormalizedEvent[]) {
    const batch = Array.isArray((request.body as { events?: unknown }).events);
    for (const [i, e] of events.entries()) {
      if (!e.lead) continue;
      const at = batch ? `/body/events/${i}` : '/body';
      const session = e.sessionId ? await app.sessions.scoredWith(e.sessionId, key) : null;
      if (!session) {
        throw new AppError(
          400,
          'invalid_event',
          'Invalid event: lead_submitted needs the session_id of a score answered with this key',
          [{ path: `${at}/session_id`, message: 'is not a score session of this key' }],
        );
      }
      const context = await withDeadline(
        leadContext(app.db, key.merchantId, session.shown),
        app.config.dbTimeoutMs,
        () => databaseTimeout('The lead'),
      );
      if (e.lead.phone !== null) {
        const phone = toE164(e.lead.phone, context.phoneCountry);
        if (!phone) {
          throw new AppError(400, 'invalid_phone', 'Invalid phone: not a phone number (any digits, spaces, dashes)', [
            {
              path: `${at}/phone`,
              message: `is not a phone number; without a country code it is read as ${context.phoneCountry}`,
            },
          ]);
        }
        e.lead.phone = phone;
      }
      e.lead.picks = context.picks;
      e.lead.locale = session.locale;
      const bySession = leadsBySession.add(`${key.merchantId} ${e.sessionId}`);
      const byAddress = leadsByAddress.add(request.ip);
      if (bySession.count > LEADS_PER_SESSION || byAddress.count > LEADS_PER_ADDRESS) {
        const retry = bySession.count > LEADS_PER_SESSION ? bySession.retryAfter : byAddress.retryAfter;
        throw new AppError(
          429,
          'rate_limited',
          `Too many leads: at most ${LEADS_PER_SESSION} a quiz session and ${LEADS_PER_ADDRESS} an address an hour`,
          undefined,
          { 'retry-after': String(retry) },
        );
      }
    }
  }

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
      config: { rateLimit: widgetRateLimit('event'), swaggerTransform: documentAs({ body: EventRequestDocument }) },
      schema: {
        operationId: 'recordEvents',
        tags: ['widget'],
        summary: 'Records widget lifecycle, click, lead and purchase events',
        description:
          'One event inline or a batch of 1–50, as application/json or text/plain holding JSON (navigator.sendBeacon). Each event is validated for its type; one bad event refuses the whole request. 202 means committed to the database; a resent event (same event_id, or a purchase with the same order_id) is stored once and counted as a duplicate. At most 32 KB an event and 64 KB a request. 1000 requests a minute per key and client address.',
        security: [{ widgetKey: [] }],
        // navigator.sendBeacon sends the same JSON as text/plain, without a CORS preflight
        consumes: ['application/json', 'text/plain'],
        body: EventRequestSchema,
        response: {
          202: success(
            EventResponseSchema,
            'Committed to the database: how many events were stored, how many were already there',
            { rateLimited: true, example: EVENT_EXAMPLE.response },
          ),
          ...errorResponses([...WIDGET_OPERATION, 'invalid_event', 'invalid_phone', 'write_outcome_unknown'], {
            rateLimited: true,
          }),
        },
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
      await checkLeads(request, { id: key.id, merchantId: key.merchant.id, test: key.mode === 'test' }, result.events);
      const stored = await app.eventWriter.write({
        merchantId: key.merchant.id,
        keyId: key.id,
        test: key.mode === 'test',
        events: result.events,
      });
      app.metrics.eventsIngested.inc(stored.accepted);
      // a new lead may have queued a webhook post or an email: sent now, not at the next poll
      if (stored.accepted && result.events.some((e) => e.lead)) app.deliveries.kick();
      return reply.status(202).send(stored);
    },
  );
};

export default event;
