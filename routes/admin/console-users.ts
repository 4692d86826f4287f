import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Nullable } from '../../contracts/common.ts';
import { ADMIN_CHANGE, errorResponses, success } from '../../contracts/errors.ts';
import { consoleUserView, createConsoleUser, PASSWORD_MAX, PASSWORD_MIN } from '../../services/console-users.ts';

const security = [{ adminToken: [] }];

export const ConsoleUserSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Type.Union([Type.Literal('operator'), Type.Literal('owner'), Type.Literal('staff')]),
  merchant_id: Nullable(
    Type.String({ description: 'The merchant an owner or staff member sees; null for an operator' }),
  ),
});

/** Console accounts (docs/console.md): made here by the operator, or in the console by a merchant's owner. */
const consoleUsers: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/console-users',
    {
      schema: {
        operationId: 'createConsoleUser',
        tags: ['admin'],
        summary: 'Creates a merchant console user: an operator (every merchant), or an owner or staff member of one',
        description:
          'The password is stored only as an Argon2id hash. An owner or staff member names its merchant by id or slug.',
        security,
        body: Type.Object(
          {
            email: Type.String({ minLength: 3, maxLength: 320 }),
            password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
            role: Type.Union([Type.Literal('operator'), Type.Literal('owner'), Type.Literal('staff')]),
            merchant: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'id or slug' })),
          },
          { additionalProperties: false },
        ),
        response: {
          201: success(ConsoleUserSchema, 'The user created'),
          ...errorResponses([...ADMIN_CHANGE, 'invalid_console_user', 'email_taken', 'merchant_not_found']),
        },
      },
    },
    async (request, reply) => {
      const user = await createConsoleUser(app.db, { ...request.body, merchant: request.body.merchant ?? null });
      request.log.info({ user: user.id, role: user.role }, 'console user created');
      return reply.status(201).send(consoleUserView(user));
    },
  );
};

export default consoleUsers;
