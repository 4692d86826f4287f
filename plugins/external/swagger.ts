import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';

/** The TypeBox route schemas, published as OpenAPI at /docs/json and browsable at /docs. */
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
    await app.register(swaggerUi, { routePrefix: '/docs' });
  },
  { name: 'swagger' },
);
