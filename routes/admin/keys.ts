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
import { errorResponses } from '../../contracts/common.ts';
import { createKey, listKeys, revokeKey, updateKeyOrigins } from '../../services/keys.ts';

const security = [{ adminToken: [] }];

const keys: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/merchants/:id/keys',
    {
      schema: {
        tags: ['admin'],
        summary: 'Creates a widget key; the plaintext key is in this answer only',
        security,
        params: MerchantIdParams,
        body: CreateKeyBodySchema,
        response: { 201: CreatedKeySchema, ...errorResponses },
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
        tags: ['admin'],
        summary: "Lists a merchant's keys (never the plaintext)",
        security,
        params: MerchantIdParams,
        response: { 200: Type.Object({ keys: Type.Array(AdminKeySchema) }), ...errorResponses },
      },
    },
    async (request) => ({ keys: await listKeys(app.db, request.params.id) }),
  );

  app.post(
    '/keys/:id/revoke',
    {
      schema: {
        tags: ['admin'],
        summary: 'Revokes a key, at once on every instance',
        security,
        params: KeyIdParams,
        response: { 200: AdminKeySchema, ...errorResponses },
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
        tags: ['admin'],
        summary: "Replaces a key's allowed origins",
        security,
        params: KeyIdParams,
        body: UpdateKeyBodySchema,
        response: { 200: AdminKeySchema, ...errorResponses },
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
