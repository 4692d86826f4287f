import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';

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
 * The TypeBox route schemas as OpenAPI: the public part at /docs/json (and
 * browsable at /docs), the whole at /api/admin/openapi.json for operators.
 */
export default fp(
  async (app) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Sillage widget service',
          description:
            'Taste-based fragrance recommendations for storefronts. Widget operations take the publishable key in the JSON body (`api_key`) or as `Authorization: Bearer`; the admin API takes the operator token as `Authorization: Bearer`.',
          version: '1',
        },
        servers: [{ url: app.config.publicBaseUrl }],
        tags: [
          { name: 'widget', description: 'Called by the storefront widget and custom clients' },
          { name: 'admin', description: 'Operators and merchant integrations (ADMIN_TOKEN)' },
          { name: 'health', description: 'Liveness and readiness' },
        ],
        components: {
          securitySchemes: {
            widgetKey: {
              type: 'http',
              scheme: 'bearer',
              description: 'pk_test_… or pk_live_…; or api_key in the body',
            },
            adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' },
          },
        },
      },
    });
    await app.register(swaggerUi, { routePrefix: '/docs', transformSpecification: publicDocument });
  },
  { name: 'swagger' },
);
