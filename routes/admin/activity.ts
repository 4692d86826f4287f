import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { MerchantIdParams } from '../../contracts/admin.ts';
import { Nullable } from '../../contracts/common.ts';
import { ADMIN_CHANGE, ADMIN_READ, errorResponses, headersOf, PATH_PARAM, success } from '../../contracts/errors.ts';
import { badRequest } from '../../lib/errors.ts';
import { merchantAnalytics } from '../../services/analytics.ts';
import { eraseLeads, exportLeads, leadsCsv, purgeExpiredLeads } from '../../services/leads.ts';
import { reattributeMerchant } from '../../services/purchase-attribution.ts';
import { getLeadSettings, listDeliveries, updateLeadSettings } from '../../services/webhooks.ts';

const security = [{ adminToken: [] }];
const DAY = 24 * 3600 * 1000;

const Counted = (key: string) => Type.Array(Type.Object({ merchant_product_id: Type.String(), [key]: Type.Integer() }));

const AnalyticsSchema = Type.Object({
  merchant: Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String() }),
  from: Type.String(),
  to: Type.String(),
  traffic: Type.Union([Type.Literal('live'), Type.Literal('test')]),
  funnel: Type.Object({
    widget_loaded: Type.Integer(),
    widget_opened: Type.Integer(),
    quiz_started: Type.Integer(),
    quiz_completed: Type.Integer(),
    results_viewed: Type.Integer(),
    recommendation_clicked: Type.Integer(),
    purchased: Type.Integer({ description: 'Orders attributed to the widget' }),
  }),
  scored_sessions: Type.Integer(),
  gift_sessions: Type.Object(
    { total: Type.Integer(), him: Type.Integer(), her: Type.Integer(), anyone: Type.Integer() },
    {
      description:
        'Of scored_sessions, the quizzes of the gift path (quiz.gift), by recipient: him (gender men), her (women), anyone (no gender)',
    },
  ),
  click_through_rate: Nullable(Type.Number({ description: 'recommendation clicks / results viewed' })),
  conversion_rate: Nullable(Type.Number({ description: 'attributed orders / quizzes completed' })),
  orders: Type.Object({ total: Type.Integer(), attributed: Type.Integer() }),
  attributed_revenue: Type.Array(
    Type.Object({ currency: Type.String(), orders: Type.Integer(), revenue: Type.Number() }),
  ),
  top_recommended: Counted('times'),
  top_clicked: Counted('clicks'),
  loved_accords: Type.Array(Type.Object({ accord: Type.String(), sessions: Type.Integer() })),
  avoided_accords: Type.Array(Type.Object({ accord: Type.String(), sessions: Type.Integer() })),
  loved_perfumes: Type.Array(Type.Object({ sillage_perfume_id: Type.String(), sessions: Type.Integer() }), {
    description: 'The perfumes shoppers named as loved (quiz.loved_perfumes), by scored sessions, at most ten',
  }),
  attribution_window_days: Type.Integer(),
});

/** `2026-01-01` (midnight UTC) or `2026-01-01T10:00:00Z`, as the description promises. */
const DateOrDateTime = (description: string) =>
  Type.Union([Type.String({ format: 'date' }), Type.String({ format: 'date-time' })], { description });

const LeadSchema = Type.Object({
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  consent_at: Type.String(),
  consent_version: Type.String(),
  session_id: Nullable(Type.String()),
  locale: Nullable(Type.String({ description: "The widget's language in the lead's session" })),
  picks: Type.Array(
    Type.Object({
      merchant_product_id: Type.String(),
      name: Nullable(Type.String({ description: 'null when the product is not in the catalog (an inline score)' })),
      url: Nullable(Type.String({ description: "The product's page in the shop, when the catalog has one" })),
    }),
    { description: 'The recommendations the shopper was shown in that session, in order' },
  ),
  test: Type.Boolean(),
  created_at: Type.String(),
});

const LeadSettingsSchema = Type.Object({
  phone_country: Type.String({
    description: "The country a lead's phone without a country code is read in (ISO 3166 alpha-2); SA by default",
  }),
  webhook_url: Nullable(Type.String({ description: 'Where each new lead is posted as `lead.created`' })),
  webhook_secret_set: Type.Boolean(),
});

const DeliverySchema = Type.Object({
  id: Type.String(),
  event: Type.String({
    description: "lead.created: the post to the merchant's webhook; picks.email: the shopper's email of their picks",
  }),
  test: Type.Boolean(),
  status: Type.Union(
    ['pending', 'delivered', 'failed', 'dropped'].map((s) => Type.Literal(s)),
    {
      description:
        'pending: to be sent (again) at next_attempt_at; delivered: a 2xx answer; failed: every attempt failed; dropped: the queue was full',
    },
  ),
  attempts: Type.Integer(),
  last_status: Nullable(Type.Integer({ description: "The receiver's last HTTP status" })),
  last_error: Nullable(Type.String()),
  created_at: Type.String(),
  next_attempt_at: Nullable(Type.String()),
  delivered_at: Nullable(Type.String()),
});

const activity: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/merchants/:id/analytics',
    {
      schema: {
        operationId: 'getAnalytics',
        tags: ['admin'],
        summary: 'Funnel, click-through, conversion and attributed revenue over a period',
        description:
          '`from` and `to` are ISO dates or date-times (default: the last 30 days); `traffic` is live (default) or test, never mixed.',
        security,
        params: MerchantIdParams,
        querystring: Type.Object(
          {
            from: Type.Optional(DateOrDateTime('Start of the period (default: 30 days before `to`)')),
            to: Type.Optional(DateOrDateTime('End of the period (default: now)')),
            traffic: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('test')])),
          },
          { additionalProperties: false },
        ),
        response: {
          200: success(AnalyticsSchema, 'The funnel and attribution over the period'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_READ, 'merchant_not_found', 'invalid_period']),
        },
      },
    },
    async (request) => {
      const to = request.query.to ? new Date(request.query.to) : new Date();
      const from = request.query.from ? new Date(request.query.from) : new Date(to.getTime() - 30 * DAY);
      if (from >= to) throw badRequest('invalid_period', 'from must be before to');
      return merchantAnalytics(app.db, request.params.id, {
        from,
        to,
        test: request.query.traffic === 'test',
        attributionWindowDays: app.config.attributionWindowDays,
      });
    },
  );

  app.post(
    '/merchants/:id/analytics/reattribute',
    {
      schema: {
        operationId: 'reattributePurchases',
        tags: ['admin'],
        summary: 'Recomputes the attribution of every purchase of the merchant (after ATTRIBUTION_WINDOW_DAYS changed)',
        security,
        params: MerchantIdParams,
        response: {
          200: success(
            Type.Object({ merchant_id: Type.String(), slug: Type.String(), attribution_window_days: Type.Integer() }),
            'Re-attributed, with the window used',
          ),
          ...errorResponses([...PATH_PARAM, ...ADMIN_CHANGE, 'merchant_not_found']),
        },
      },
    },
    async (request) => reattributeMerchant(app.db, request.params.id, app.config.attributionWindowDays),
  );

  app.get(
    '/merchants/:id/leads',
    {
      schema: {
        operationId: 'exportLeads',
        tags: ['admin'],
        summary: "Exports a merchant's leads (decrypted), as JSON or CSV",
        security,
        params: MerchantIdParams,
        querystring: Type.Object(
          { format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])) },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description:
              "The merchant's leads: JSON, or with `format=csv` a CSV file (UTF-8, a header row, one lead a row)",
            headers: headersOf(200),
            content: {
              'application/json': { schema: Type.Object({ leads: Type.Array(LeadSchema) }) },
              'text/csv': { schema: Type.String() },
            },
          },
          ...errorResponses([...PATH_PARAM, ...ADMIN_READ, 'merchant_not_found']),
        },
      },
    },
    async (request, reply) => {
      const rows = await exportLeads(app.db, app.leadCipher, request.params.id);
      request.log.info({ merchant: request.params.id, leads: rows.length }, 'leads exported');
      if (request.query.format === 'csv') {
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="leads.csv"')
          .serializer((x: unknown) => x as string)
          .send(leadsCsv(rows) as never);
      }
      return { leads: rows };
    },
  );

  app.delete(
    '/merchants/:id/leads',
    {
      schema: {
        operationId: 'eraseLeads',
        tags: ['admin'],
        summary: 'Erases every lead of the merchant with this email or this phone (right to erasure)',
        description:
          'Send email, phone, or both. Leads are found by keyed hashes; the request is never written to the log with the contact in it.',
        security,
        params: MerchantIdParams,
        querystring: Type.Object(
          {
            email: Type.Optional(Type.String({ minLength: 3, maxLength: 254 })),
            phone: Type.Optional(Type.String({ minLength: 6, maxLength: 32, pattern: '^\\+?[0-9][0-9 ()-]{5,30}$' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: success(Type.Object({ deleted: Type.Integer() }), 'How many leads were erased'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_CHANGE, 'merchant_not_found']),
        },
      },
    },
    async (request) => {
      const { email, phone } = request.query;
      if (!email && !phone) throw badRequest('validation_failed', 'Send email or phone: whose leads to erase');
      return { deleted: await eraseLeads(app.db, app.leadCipher, request.params.id, { email, phone }) };
    },
  );

  app.post(
    '/leads/purge',
    {
      schema: {
        operationId: 'purgeLeads',
        tags: ['admin'],
        summary:
          "Removes every merchant's leads older than LEAD_RETENTION_DAYS (each instance also does it every 6 hours)",
        security,
        response: {
          200: success(
            Type.Object({ purged: Type.Integer(), retention_days: Type.Integer() }),
            'How many leads were removed, and the retention applied',
          ),
          ...errorResponses(ADMIN_CHANGE),
        },
      },
    },
    async () => ({
      purged: await purgeExpiredLeads(app.db, app.config.leadRetentionDays),
      retention_days: app.config.leadRetentionDays,
    }),
  );

  app.get(
    '/merchants/:id/lead-settings',
    {
      schema: {
        operationId: 'getLeadSettings',
        tags: ['admin'],
        summary: "A merchant's lead settings: the phone country and the webhook",
        security,
        params: MerchantIdParams,
        response: {
          200: success(LeadSettingsSchema, 'The settings (the webhook secret is never shown again)'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_READ, 'merchant_not_found']),
        },
      },
    },
    async (request) => getLeadSettings(app.db, request.params.id),
  );

  app.put(
    '/merchants/:id/lead-settings',
    {
      schema: {
        operationId: 'updateLeadSettings',
        tags: ['admin'],
        summary: "Changes a merchant's lead settings; a new webhook secret is answered once",
        description:
          'Fields left out are kept. `webhook_url: null` removes the webhook and its secret. Setting a URL when there is no secret, or `rotate_secret: true`, makes a new signing secret, answered once as `webhook_secret` (docs/webhooks.md).',
        security,
        params: MerchantIdParams,
        body: Type.Object(
          {
            phone_country: Type.Optional(Type.String({ minLength: 2, maxLength: 2 })),
            webhook_url: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 2000 }))),
            rotate_secret: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: {
          200: success(
            Type.Composite([
              LeadSettingsSchema,
              Type.Object({
                webhook_secret: Type.Optional(
                  Type.String({ description: 'The new signing secret: shown this once, store it now' }),
                ),
              }),
            ]),
            'The settings',
          ),
          ...errorResponses([...PATH_PARAM, ...ADMIN_CHANGE, 'merchant_not_found', 'invalid_webhook_url']),
        },
      },
    },
    async (request) =>
      updateLeadSettings(app.db, app.leadCipher, request.params.id, request.body, app.config.webhooks.allowPrivate),
  );

  app.get(
    '/merchants/:id/lead-deliveries',
    {
      schema: {
        operationId: 'listLeadDeliveries',
        tags: ['admin'],
        summary: "The merchant's latest 100 lead deliveries (webhook posts, picks emails), newest first",
        security,
        params: MerchantIdParams,
        response: {
          200: success(Type.Object({ deliveries: Type.Array(DeliverySchema) }), 'The delivery log'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_READ, 'merchant_not_found']),
        },
      },
    },
    async (request) => ({ deliveries: await listDeliveries(app.db, request.params.id) }),
  );
};

export default activity;
