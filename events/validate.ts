/**
 * Widget events: the types, their fields, and validation of a request's
 * events one by one. Pure.
 */
import { FormatRegistry, type TSchema, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { UUID_PATTERN } from '../contracts/common.ts';

export const LIFECYCLE = [
  'widget_loaded',
  'widget_opened',
  'quiz_started',
  'quiz_completed',
  'results_viewed',
  'widget_closed',
  'widget_error',
] as const;
export const CLICKS = ['recommendation_clicked', 'also_explore_clicked', 'powered_by_clicked'] as const;
export const EVENT_TYPES = [...LIFECYCLE, ...CLICKS, 'lead_submitted', 'purchase_completed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const MAX_EVENTS = 50;
export const MAX_EVENT_BYTES = 32 * 1024;
export const MAX_REQUEST_BYTES = 64 * 1024;
/** occurred_at is kept within [now − 7 days, now + 5 minutes]: client clocks drift, replayed queues age */
export const OCCURRED_MAX_AGE_MS = 7 * 24 * 3600 * 1000;
export const OCCURRED_MAX_AHEAD_MS = 5 * 60 * 1000;

// TypeBox's compiler knows no string formats until told
if (!FormatRegistry.Has('date-time')) {
  FormatRegistry.Set(
    'date-time',
    (v) => /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/i.test(v) && !Number.isNaN(Date.parse(v)),
  );
}
if (!FormatRegistry.Has('uuid')) {
  const uuid = new RegExp(UUID_PATTERN);
  FormatRegistry.Set('uuid', (v) => uuid.test(v));
}

const Common = {
  type: Type.String(),
  event_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Client id: a resent event with the same id is stored once',
    }),
  ),
  occurred_at: Type.Optional(Type.String({ format: 'date-time', maxLength: 40 })),
  session_id: Type.Optional(Type.String({ format: 'uuid' })),
};
const ProductRef = {
  merchant_product_id: Type.String({ minLength: 1, maxLength: 200 }),
  position: Type.Integer({ minimum: 1, maximum: 100 }),
};
const Email = Type.String({ maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' });
// as typed, in any digits: the route reads it as a number of the merchant's country (lib/phone.ts)
const Phone = Type.String({
  minLength: 1,
  maxLength: 40,
  description:
    "As the shopper typed it: Latin, Arabic-Indic or Persian digits, spaces, dashes, dots, brackets, a leading + or 00; a number without a country code is read in the merchant's country (SA by default). Stored in E.164; a number that is not one answers 400 invalid_phone",
});

/** the most an order may total, and its items add up to: far beyond any shop's order, far within a revenue column */
export const MAX_ORDER_TOTAL = 1e9;
/** what a lifecycle event's `data` may hold: a few short, flat values of the widget's own */
export const MAX_DATA_KEYS = 20;
export const MAX_DATA_TEXT = 200;
const LifecycleData = Type.Record(
  Type.String({ maxLength: 40 }),
  Type.Union([Type.String({ maxLength: MAX_DATA_TEXT }), Type.Number(), Type.Boolean(), Type.Null()]),
  {
    maxProperties: MAX_DATA_KEYS,
    description: `At most ${MAX_DATA_KEYS} flat values (text of at most ${MAX_DATA_TEXT} characters, numbers, booleans)`,
  },
);

const LifecycleEvent = Type.Object({ ...Common, data: Type.Optional(LifecycleData) });

/**
 * Each type's schema, with its static type kept: the headless client's event
 * types are these (widget/client-contracts.ts), so the package a storefront
 * installs cannot accept an event the server refuses.
 */
export const EVENT_SCHEMAS = {
  ...(Object.fromEntries(LIFECYCLE.map((t) => [t, LifecycleEvent])) as Record<
    (typeof LIFECYCLE)[number],
    typeof LifecycleEvent
  >),
  widget_error: Type.Object({
    ...Common,
    message: Type.Optional(Type.String({ maxLength: 500 })),
    code: Type.Optional(Type.String({ maxLength: 100 })),
  }),
  recommendation_clicked: Type.Object({ ...Common, ...ProductRef }),
  also_explore_clicked: Type.Object({ ...Common, ...ProductRef }),
  powered_by_clicked: Type.Object({ ...Common }),
  lead_submitted: Type.Object({
    ...Common,
    email: Type.Optional(Email),
    phone: Type.Optional(Phone),
    consent: Type.Literal(true, { description: 'The shopper ticked the consent box' }),
    consent_version: Type.String({ minLength: 1, maxLength: 50, description: 'Version of the consent wording shown' }),
  }),
  purchase_completed: Type.Object({
    ...Common,
    order_id: Type.String({ minLength: 1, maxLength: 100 }),
    total: Type.Number({ minimum: 0, maximum: MAX_ORDER_TOTAL }),
    currency: Type.String({ pattern: '^[A-Za-z]{3}$' }),
    items: Type.Array(
      Type.Object({
        merchant_product_id: Type.String({ minLength: 1, maxLength: 200 }),
        quantity: Type.Integer({ minimum: 1, maximum: 10_000 }),
        price: Type.Number({ minimum: 0, maximum: MAX_ORDER_TOTAL }),
      }),
      { minItems: 1, maxItems: 200 },
    ),
  }),
};
export const EventSchemas: Record<EventType, TSchema> = EVENT_SCHEMAS;

const checkers = new Map(Object.entries(EventSchemas).map(([t, s]) => [t, TypeCompiler.Compile(s)]));
/** the fields each type defines: anything else a client sends is dropped, never stored */
const FIELDS = new Map(
  Object.entries(EventSchemas).map(([t, s]) => [
    t,
    new Set(Object.keys((s as unknown as { properties: object }).properties)),
  ]),
);

export interface NormalizedEvent {
  type: EventType;
  eventId: string | null;
  occurredAt: Date;
  sessionId: string | null;
  /** the type's fields, contact details excluded */
  data: Record<string, unknown>;
  lead?: {
    email: string | null;
    /** as typed here; the event route replaces it with its E.164 form */
    phone: string | null;
    consentVersion: string;
    /** set by the event route from the lead's score session */
    picks?: { merchant_product_id: string; name: string | null; url: string | null }[];
    locale?: string;
  };
  purchase?: {
    orderId: string;
    total: number;
    currency: string;
    items: { merchant_product_id: string; quantity: number; price: number }[];
  };
}

export interface EventProblem {
  path: string;
  message: string;
}

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/**
 * The request's events in the batch or the single form, each checked against
 * its type. Any problem refuses the whole request: a client never has to
 * wonder which half landed.
 */
export function validateEvents(
  body: Record<string, unknown>,
  now: Date,
): { ok: true; events: NormalizedEvent[] } | { ok: false; problems: EventProblem[] } {
  const batch = Array.isArray(body.events);
  const raw: unknown[] = batch ? (body.events as unknown[]) : [body];
  if (batch && body.type !== undefined)
    return {
      ok: false,
      problems: [{ path: '/body', message: 'send either events: [...] or one event inline, not both' }],
    };
  if (!batch && typeof body.type !== 'string') {
    return {
      ok: false,
      problems: [{ path: '/body', message: 'send events: [1–50 events] or one event with its type' }],
    };
  }
  if (raw.length === 0 || raw.length > MAX_EVENTS) {
    return { ok: false, problems: [{ path: '/body/events', message: `must hold 1 to ${MAX_EVENTS} events` }] };
  }
  const defaultSession = typeof body.session_id === 'string' ? body.session_id : null;
  const problems: EventProblem[] = [];
  const events: NormalizedEvent[] = [];
  raw.forEach((e, i) => {
    const base = batch ? `/body/events/${i}` : '/body';
    if (!e || typeof e !== 'object' || Array.isArray(e)) {
      problems.push({ path: base, message: 'an event must be an object' });
      return;
    }
    // an inline event's api_key (and any field its type does not define) is dropped below
    const ev = { ...(e as Record<string, unknown>) };
    if (JSON.stringify(ev).length > MAX_EVENT_BYTES) {
      problems.push({ path: base, message: `an event may be at most ${MAX_EVENT_BYTES / 1024} KB` });
      return;
    }
    const type = ev.type;
    if (typeof type !== 'string' || !checkers.has(type)) {
      problems.push({
        path: `${base}/type`,
        message: `unknown event type "${String(type).slice(0, 40)}"; allowed: ${EVENT_TYPES.join(', ')}`,
      });
      return;
    }
    const checker = checkers.get(type) as ReturnType<typeof TypeCompiler.Compile>;
    const first = checker.Errors(ev).First();
    if (first) {
      const missing = /Expected required property/.test(first.message);
      const field = first.path.slice(1);
      const message = missing
        ? `${type} needs ${field}`
        : field === 'consent'
          ? "must be true: a lead is stored only with the shopper's consent"
          : first.message.replace(/^Expected /, 'expected ');
      problems.push({ path: `${base}${first.path}`, message });
      return;
    }
    const t = type as EventType;
    // the schema has checked both: a session id is a UUID, occurred_at a date-time Date.parse reads
    const sessionId = (ev.session_id as string | undefined) ?? defaultSession;
    let occurredAt = now;
    if (typeof ev.occurred_at === 'string') {
      const at = Date.parse(ev.occurred_at);
      occurredAt = new Date(
        Math.min(now.getTime() + OCCURRED_MAX_AHEAD_MS, Math.max(now.getTime() - OCCURRED_MAX_AGE_MS, at)),
      );
    }
    const fields = FIELDS.get(t) as Set<string>;
    for (const k of Object.keys(ev)) if (!fields.has(k)) delete ev[k];
    const { type: _t, event_id, occurred_at: _o, session_id: _s, email, phone, ...data } = ev;
    const out: NormalizedEvent = {
      type: t,
      eventId: typeof event_id === 'string' ? event_id : null,
      occurredAt,
      sessionId,
      data,
    };
    if (t === 'lead_submitted') {
      if (typeof email !== 'string' && typeof phone !== 'string') {
        problems.push({ path: base, message: 'lead_submitted needs an email or a phone' });
        return;
      }
      out.lead = {
        // the pattern admits no white space to trim
        email: typeof email === 'string' ? email : null,
        phone: typeof phone === 'string' ? phone : null,
        consentVersion: String(data.consent_version),
      };
      out.data = {
        consent_version: data.consent_version,
        has_email: typeof email === 'string',
        has_phone: typeof phone === 'string',
      };
    }
    if (t === 'purchase_completed') {
      const currency = String(data.currency).toUpperCase();
      if (!CURRENCIES.has(currency)) {
        problems.push({ path: `${base}/currency`, message: 'must be an ISO 4217 code such as SAR' });
        return;
      }
      const p = data as unknown as NonNullable<NormalizedEvent['purchase']> & { order_id: string };
      const itemsTotal = p.items.reduce((sum, i) => sum + i.quantity * i.price, 0);
      if (itemsTotal > MAX_ORDER_TOTAL) {
        problems.push({
          path: `${base}/items`,
          message: `the items add up to more than ${MAX_ORDER_TOTAL.toLocaleString('en')} (quantity × price)`,
        });
        return;
      }
      out.purchase = { orderId: p.order_id, total: p.total, currency, items: p.items };
      out.data = { order_id: p.order_id, total: p.total, currency, items: p.items.length };
    }
    events.push(out);
  });
  return problems.length ? { ok: false, problems } : { ok: true, events };
}
