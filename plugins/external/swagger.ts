import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { ALWAYS_SENT } from '../../contracts/errors.ts';

/**
 * The public document: the widget operations and health, not the operator's
 * API (served whole, behind the admin token, at /api/admin/openapi.json).
 */
export function publicDocument(doc: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const paths = Object.fromEntries(
    Object.entries((doc.paths ?? {}) as Record<string, unknown>).filter(([path]) => !path.startsWith('/api/admin')),
  );
  const components = (doc.components ?? {}) as { securitySchemes?: Record<string, unknown> };
  const { adminToken: _admin, ...securitySchemes } = components.securitySchemes ?? {};
  return {
    ...doc,
    info: {
      ...(doc.info as object),
      description:
        'Taste-based fragrance recommendations for storefronts. Widget operations take the publishable key in the JSON body (`api_key`) or as `Authorization: Bearer`.',
    },
    tags: ((doc.tags ?? []) as { name: string }[]).filter((t) => t.name !== 'admin'),
    paths,
    components: { ...components, securitySchemes },
  };
}

/**
 * A route option (`config.swaggerTransform`) that publishes these schemas
 * instead of the ones the route validates with: a body checked part by part by
 * the route itself (feed rows one by one, events per type), so that a bad part
 * is reported as such rather than refusing the whole at the schema; a query
 * string whose numbers the route reads from their digits (the server does not
 * coerce types: `?limit=10` arrives as text and is checked as such).
 */
export function documentAs(parts: { body?: object; querystring?: object }) {
  return ({ schema, url }: { schema: object; url: string }) => ({ schema: { ...schema, ...parts }, url });
}

type Operation = { responses?: Record<string, { headers?: Record<string, { required?: boolean; schema?: object }> }> };

/**
 * The document as clients read it, from what the route schemas say: a
 * header every such answer carries is `required` (its schema says so, marked
 * ALWAYS_SENT, where an OpenAPI header cannot).
 */
export function finishDocument<T extends { paths?: Record<string, Record<string, Operation>> }>(doc: T): T {
  for (const methods of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(methods)) {
      for (const response of Object.values(operation.responses ?? {})) {
        for (const header of Object.values(response.headers ?? {})) {
          const schema = header.schema as Record<string, unknown> | undefined;
          if (schema && ALWAYS_SENT in schema) {
            delete schema[ALWAYS_SENT];
            header.required = true;
          }
        }
      }
    }
  }
  return doc;
}

/**
 * The TypeBox route schemas as OpenAPI: the public part at /docs/json (and
 * browsable at /docs), the whole at /api/admin/openapi.json for operators.
 */
export default fp(
  async (app) => {
    await app.register(swagger, {
      // a shared schema keeps its $id as its name in components.schemas (Recommendation, not def-3)
      transformObject: (documents) => finishDocument((documents as { openapiObject: object }).openapiObject as never),
      refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (json.$id as string) ?? `def-${i}` },
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Sillage widget service',
          description:
            'Taste-based fragrance recommendations for storefronts. Widget operations take the publishable key in the JSON body (`api_key`) or as `Authorization: Bearer`; the admin API takes the operator token as `Authorization: Bearer`.',
          version: '1',
          license: { name: 'Proprietary', url: `${app.config.publicBaseUrl}/docs` },
        },
        servers: [{ url: app.config.publicBaseUrl }],
        tags: [
          { name: 'widget', description: 'Called by the storefront widget and custom clients' },
          { name: 'admin', description: 'Operators and merchant integrations (ADMIN_TOKEN)' },
          { name: 'widget files', description: 'The embeddable widget and the headless client, with their manifest' },
          { name: 'health', description: 'Liveness and readiness' },
          {
            name: 'platforms',
            description:
              "Called by the shop platforms (webhooks, signed with the app's secret) and by the platform app's storefront script",
          },
        ],
        components: {
          securitySchemes: {
            widgetKey: {
              type: 'http',
              scheme: 'bearer',
              bearerFormat: 'pk_test_… or pk_live_…',
              description:
                "A merchant's publishable widget key, safe in a web page: as `Authorization: Bearer`, or as `api_key` in the JSON body (the body wins when both are sent). Test keys answer `test_mode: true` and are counted apart.",
            },
            adminToken: {
              type: 'http',
              scheme: 'bearer',
              bearerFormat: 'ADMIN_TOKEN',
              description:
                "The operator's secret (`ADMIN_TOKEN`), as `Authorization: Bearer`, from servers only: never in a page. Ten wrong tokens a minute from one address, then 429.",
            },
          },
        },
      },
    });
    await app.register(swaggerUi, { routePrefix: '/docs', transformSpecification: publicDocument });
  },
  { name: 'swagger' },
);
