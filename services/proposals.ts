/**
 * The operator's side of merchants' answers (docs/learning.md "Proposals"): what the answers for each
 * perfume propose, with how many merchants give each fact (never which), and the operator's review:
 * a fact approved is in force for every shop with one merchant's word; a fact rejected never is,
 * whatever merchants agree. Learning (services/learning.ts) keeps the votes current; a review takes
 * effect on the perfume's products at the next learning of it, sent at once by the route.
 */

import { eq, sql } from 'drizzle-orm';
import type { CatalogSnapshot } from '../catalog/store.ts';
import type { DbOrTx } from '../db/client.ts';
import { badRequest, notFound } from '../lib/errors.ts';
import { inForceOf } from '../matching/answers.ts';
import { proposals } from '../schema/index.ts';

export const PROPOSAL_STATUSES = ['waiting', 'in_force', 'rejected', 'all'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/** The reason an operator gives, at most this long. */
export const MAX_WHY_LENGTH = 500;

type ProposalRow = typeof proposals.$inferSelect;

/** A fact as the operator reads it: its kind, what it names, how many merchants give it, and its state. */
function factOf(item: string, row: ProposalRow, snapshot: CatalogSnapshot) {
  const at = item.indexOf(':');
  const kind = item.slice(0, at) as 'note' | 'accord' | 'inspired' | 'spelling';
  const value = item.slice(at + 1);
  const original = kind === 'inspired' ? snapshot.byId.get(value) : undefined;
  return {
    item,
    kind,
    value,
    ...(kind === 'inspired' ? { perfume: { name: original?.name ?? null, house: original?.house ?? null } } : {}),
    shops: row.votes[item] ?? 0,
    state: row.rejected.includes(item)
      ? ('rejected' as const)
      : row.inForce.includes(item)
        ? ('in_force' as const)
        : ('waiting' as const),
    approved: row.approved.includes(item),
  };
}

/** A perfume's proposal as the operator sees it. */
export function proposalView(row: ProposalRow, snapshot: CatalogSnapshot) {
  const p = snapshot.byId.get(row.perfumeId);
  return {
    sillage_perfume_id: row.perfumeId,
    perfume: { name: p?.name ?? null, house: p?.house ?? null, concentration: p?.concentration ?? null },
    shops: row.shops,
    facts: Object.keys(row.votes)
      .sort()
      .map((item) => factOf(item, row, snapshot)),
    why: row.why,
    reviewed_at: row.reviewedAt?.toISOString() ?? null,
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Proposals, a page at a time, most merchants first: those with a fact waiting, in force, rejected, or all. */
export async function listProposals(
  db: DbOrTx,
  opts: { status: ProposalStatus; limit: number; offset: number },
): Promise<{ rows: ProposalRow[]; total: number }> {
  const where =
    opts.status === 'in_force'
      ? sql`cardinality(${proposals.inForce}) > 0`
      : opts.status === 'rejected'
        ? sql`cardinality(${proposals.rejected}) > 0`
        : opts.status === 'waiting'
          ? // a fact neither in force nor rejected: waiting for a second merchant or the operator
            sql`exists (select 1 from jsonb_object_keys(${proposals.votes}) k
                where not k = any(${proposals.inForce}) and not k = any(${proposals.rejected}))`
          : sql`true`;
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(proposals)
      .where(where)
      .orderBy(sql`${proposals.shops} desc`, proposals.perfumeId)
      .limit(opts.limit)
      .offset(opts.offset),
    db.select({ n: sql<number>`count(*)::int` }).from(proposals).where(where),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}

/**
 * The operator's review of a perfume's proposal: its facts named (all those merchants give now when
 * none are) approved or rejected, with why. A fact approved stops being rejected and the other way
 * round; what is in force is worked out again at once from the votes. Work: two statements.
 */
export async function reviewProposal(
  db: DbOrTx,
  perfumeId: string,
  review: { decision: 'approve' | 'reject'; items?: readonly string[]; why: string },
): Promise<ProposalRow> {
  const [row] = await db.select().from(proposals).where(eq(proposals.perfumeId, perfumeId)).limit(1);
  if (!row)
    throw notFound('proposal_not_found', `No merchant's answer proposes anything for "${perfumeId.slice(0, 120)}"`);
  const why = review.why.trim();
  if (!why) throw badRequest('invalid_review', 'Say why: the reason is kept with the review');
  const items = review.items?.length ? [...new Set(review.items)] : Object.keys(row.votes);
  const unknown = items.find((i) => !(i in row.votes));
  if (unknown !== undefined)
    throw badRequest('invalid_review', `"${unknown.slice(0, 120)}" is not a fact merchants propose for this perfume`);
  const approve = review.decision === 'approve';
  const approved = new Set(row.approved);
  const rejected = new Set(row.rejected);
  for (const i of items) {
    (approve ? approved : rejected).add(i);
    (approve ? rejected : approved).delete(i);
  }
  const next = { approved: [...approved].sort(), rejected: [...rejected].sort() };
  const { inForce } = inForceOf(row.votes, next);
  const [updated] = await db
    .update(proposals)
    .set({ ...next, inForce, why, reviewedAt: sql`now()`, updatedAt: sql`now()` })
    .where(eq(proposals.perfumeId, perfumeId))
    .returning();
  return updated as ProposalRow;
}
