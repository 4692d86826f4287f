import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  IdentitiesQuerySchema,
  IdentityParams,
  IdentityProposalSchema,
  LearntBarcodeSchema,
  LearntBarcodesQuerySchema,
  ProposalParams,
  ProposalSchema,
  ProposalsQuerySchema,
  ReviewIdentityBodySchema,
  ReviewProposalBodySchema,
} from '../../contracts/admin.ts';
import { ADMIN_CHANGE, ADMIN_READ, errorResponses, PATH_PARAM, success } from '../../contracts/errors.ts';
import { identityView, listIdentities, reviewIdentity } from '../../services/identities.ts';
import { learntBarcodeView, listLearntBarcodes } from '../../services/learning.ts';
import { listProposals, proposalView, reviewProposal } from '../../services/proposals.ts';

const security = [{ adminToken: [] }];

/** What the shelves taught (docs/learning.md): the barcodes learnt as keys, and those shops disagree on. */
const learning: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/learning/barcodes',
    {
      schema: {
        operationId: 'listLearntBarcodes',
        tags: ['admin'],
        summary: 'Barcodes the shelves taught: conflicts to look at (by default), or keys',
        description:
          'A barcode that products of at least two shops carry, each matched to one perfume, is a key: it matches that perfume for every shop. One that shops put on different perfumes is a conflict and matches nothing; here for the operator to look at. Shops are counted, never named.',
        security,
        querystring: LearntBarcodesQuerySchema,
        response: {
          200: success(
            Type.Object({ barcodes: Type.Array(LearntBarcodeSchema), total: Type.Integer() }),
            'A page of learnt barcodes, most shops first, and the total',
          ),
          ...errorResponses(ADMIN_READ),
        },
      },
    },
    async (request) => {
      const { rows, total } = await listLearntBarcodes(app.db, {
        status: request.query.status ?? 'conflict',
        limit: Number(request.query.limit ?? 100),
        offset: Number(request.query.offset ?? 0),
      });
      const snapshot = app.catalog.current();
      return { barcodes: rows.map((r) => learntBarcodeView(r, snapshot)), total };
    },
  );

  app.get(
    '/learning/proposals',
    {
      schema: {
        operationId: 'listProposals',
        tags: ['admin'],
        summary:
          "What merchants' own answers propose about perfumes: facts waiting for review (by default), in force, or rejected",
        description:
          "A merchant's answer for a product (its notes, accords, or the perfume it is sold as the answer to) serves that merchant at once. For every other shop each fact is a proposal: in force once a second merchant gives it, or once approved here; never once rejected here. Merchants are counted, never named (docs/learning.md).",
        security,
        querystring: ProposalsQuerySchema,
        response: {
          200: success(
            Type.Object({ proposals: Type.Array(ProposalSchema), total: Type.Integer() }),
            'A page of proposals, most merchants first, and the total',
          ),
          ...errorResponses(ADMIN_READ),
        },
      },
    },
    async (request) => {
      const { rows, total } = await listProposals(app.db, {
        status: request.query.status ?? 'waiting',
        limit: Number(request.query.limit ?? 100),
        offset: Number(request.query.offset ?? 0),
      });
      const snapshot = app.catalog.current();
      return { proposals: rows.map((r) => proposalView(r, snapshot)), total };
    },
  );

  app.post(
    '/learning/proposals/:perfume_id/review',
    {
      schema: {
        operationId: 'reviewProposal',
        tags: ['admin'],
        summary: "Approves or rejects facts merchants' answers propose about a perfume, with why",
        description:
          "Approved, a fact is in force for every shop on one merchant's word; rejected, it never is, whatever merchants agree. The perfume's products of every shop take the change at its next learning, sent at once (within seconds). The reason is kept.",
        security,
        params: ProposalParams,
        body: ReviewProposalBodySchema,
        response: {
          200: success(ProposalSchema, 'The proposal as reviewed'),
          ...errorResponses([...PATH_PARAM, ...ADMIN_CHANGE, 'proposal_not_found', 'invalid_review']),
        },
      },
    },
    async (request) => {
      const row = await reviewProposal(app.db, request.params.perfume_id, request.body);
      app.learning.perfumes([row.perfumeId]);
      return proposalView(row, app.catalog.current());
    },
  );

  app.get(
    '/learning/identities',
    {
      schema: {
        operationId: 'listIdentityProposals',
        tags: ['admin'],
        summary:
          'New perfumes the shelves propose: a house and line the catalog does not know, named by two shops or more',
        description:
          "Listings of at least two independent shops (storefront hosts) that spell the same house of ours and the same line, and match no perfume of the catalog: each proposal shows the listings' pages and titles, its evidence. Only teaching merchants' bottles count (never a sample, a miniature, a set or a perfume sold as the answer to another); merchants are never named (docs/learning.md).",
        security,
        querystring: IdentitiesQuerySchema,
        response: {
          200: success(
            Type.Object({ identities: Type.Array(IdentityProposalSchema), total: Type.Integer() }),
            'A page of proposals, most shops first, and the total',
          ),
          ...errorResponses(ADMIN_READ),
        },
      },
    },
    async (request) => {
      const { rows, total } = await listIdentities(app.db, {
        status: request.query.status ?? 'waiting',
        limit: Number(request.query.limit ?? 100),
        offset: Number(request.query.offset ?? 0),
      });
      return { identities: rows.map(identityView), total };
    },
  );

  app.post(
    '/learning/identities/:id/review',
    {
      schema: {
        operationId: 'reviewIdentityProposal',
        tags: ['admin'],
        summary: 'Approves a proposed perfume (it becomes a catalog record) or rejects it, with why',
        description:
          "Approved: a catalog record is made of it (its name, corrected if given; the concentration and gender the listings state, or those given), its listings cited as the evidence of its identity, with no scent profile (it is profiled as any identity is: shops' descriptions, merchants' answers). Every shelf is then matched again against the catalog in the background. Refused with 409 when the catalog has the perfume already (pin the listings to it instead). Rejected: kept with why, and never proposed again as new.",
        security,
        params: IdentityParams,
        body: ReviewIdentityBodySchema,
        response: {
          200: success(IdentityProposalSchema, 'The proposal as reviewed'),
          ...errorResponses([
            ...PATH_PARAM,
            ...ADMIN_CHANGE,
            'proposal_not_found',
            'invalid_review',
            'identity_exists',
            'already_reviewed',
          ]),
        },
      },
    },
    async (request) => {
      const { row, catalogVersion } = await reviewIdentity(
        app.db,
        app.catalog.current(),
        request.params.id,
        request.body,
      );
      if (catalogVersion) {
        await app.catalog.refresh();
        // every shelf matched again against the catalog with the new perfume, in the background
        await app.jobs.send('catalog.rematch', { version: catalogVersion }, String(catalogVersion)).catch((err) => {
          request.log.warn(
            { err },
            'matching products again after an approved identity could not be sent; run products:rematch',
          );
        });
      }
      return identityView(row);
    },
  );
};

export default learning;
