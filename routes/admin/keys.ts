import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  AdminKeySchema,
  CreatedKeySchema,
  CreateKeyBodySchema,
  KeyIdParams,
  MerchantIdParams,
  UpdateKeyBodySchema,
} from '../../contracts/admin.ts';
import { ADMIN_CHANGE, ADMIN_READ, errorResponses, PATH_PARAM, success } from '../../contracts/errors.ts';
import { createKey, listKeys, revokeKey, updateKeyOrigins } from '../../services/keys.ts';

const security = [{ adminToken: [] }];

const keys: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/merchants/:id/keys',
    {
      schema: {
        operationId: 'createKey',
        tags: ['admin'],
        summary: 'Creates a widget key; the plaintext key is in this answer only',
        security,
        params: MerchantIdParams,
        body: CreateKeyBodySchema,
        response: {
          201: success(CreatedKeySchema, 'The key created, with its plaintext (shown this once)'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_CHANGE, 'merchant_not_found', 'invalid_origins']),
        },
      },
    },
    async (request, reply) => {
      const created = await createKey(app.db, request.params.id, {
        mode: request.body.mode,
        allowedOrigins: request.body.allowed_origins ?? [],
      });
      return reply.status(201).send(created);
    },
  );

  app.get(
    '/merchants/:id/keys',
    {
      schema: {
        operationId: 'listKeys',
        tags: ['admin'],
        summary: "Lists a merchant's keys (never the plaintext)",
        security,
        params: MerchantIdParams,
        response: {
          200: success(Type.Object({ keys: Type.Array(AdminKeySchema) }), "The merchant's keys"),
          ...errorResponses([...PATH_PARAM, ...ADMIN_READ, 'merchant_not_found']),
        },
      },
    },
    async (request) => ({ keys: await listKeys(app.db, request.params.id) }),
  );

  app.post(
    '/keys/:id/revoke',
    {
      schema: {
        operationId: 'revokeKey',
        tags: ['admin'],
        summary: 'Revokes a key, at once on every instance',
        security,
        params: KeyIdParams,
        response: {
          200: success(AdminKeySchema, 'The key, revoked'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_CHANGE, 'key_not_found']),
        },
      },
    },
    async (request) => {
      const { key, hash } = await revokeKey(app.db, request.params.id);
      await app.keyStore.invalidate(hash);
      return key;
    },
  );

  app.patch(
    '/keys/:id',
    {
      schema: {
        operationId: 'updateKeyOrigins',
        tags: ['admin'],
        summary: "Replaces a key's allowed origins",
        security,
        params: KeyIdParams,
        body: UpdateKeyBodySchema,
        response: {
          200: success(AdminKeySchema, 'The key with its new origins'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_CHANGE, 'key_not_found', 'invalid_origins']),
        },
      },
    },
    async (request) => {
      const { key, hash } = await updateKeyOrigins(app.db, request.params.id, request.body.allowed_origins);
      await app.keyStore.invalidate(hash);
      return key;
    },
  );
};

export default keys;
