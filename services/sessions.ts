import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import type { Cache } from '../lib/cache.ts';
import { apiKeys, merchants, widgetAnswers, widgetSessions } from '../schema/index.ts';

/** A scored answer's content, stored once in widget_answers however many sessions got it */
export interface RecordedAnswer {
  /** the hash of the merchant id and the two texts below (answerId) */
  id: string;
  /** the normalised quiz and its catalog_mode, as JSON */
  quizJson: string;
  /** [{merchant_product_id, position, match_score, list: recommendations|also_explore}], as JSON */
  shownJson: string;
}

export interface SessionRecord {
  id: string;
  merchantId: string;
  keyId: string;
  test: boolean;
  locale: string;
  answer: RecordedAnswer;
}

/**
 * The id of an answer's content: the first 128 bits of SHA-256 over the
 * merchant id, the quiz JSON and the shown JSON, joined by newlines, written as
 * a UUID. Migration 0006 computes the same in SQL for the sessions it moved.
 */
export function answerId(merchantId: string, quizJson: string, shownJson: string): string {
  const h = createHash('sha256').update(`${merchantId}\n${quizJson}\n${shownJson}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export function recordedAnswer(merchantId: string, quizJson: string, shownJson: string): RecordedAnswer {
  return { id: answerId(merchantId, quizJson, shownJson), quizJson, shownJson };
}

/**
 * Writes a batch of scored sessions in one statement. A re-scored session
 * updates its row; within a batch its latest answer wins.
 *
 * A session row is narrow (ids, mode, locale, answer id); an answer's quiz and
 * products shown go to widget_answers once, the first time a batch holds a
 * session that got it and `storedAnswers` (the caller's, kept across batches)
 * does not know it yet. The batch locks its merchants and keys once (FOR KEY
 * SHARE, as a foreign key check would per row) and keeps only the sessions
 * whose merchant still exists; a deleted key's id is stored as null.
 */
export async function writeSessions(
  executePrepared: Database['executePrepared'],
  batch: readonly SessionRecord[],
  storedAnswers: Cache<string, true>,
): Promise<void> {
  // One row per group of sessions that share an answer, a key and a locale, with the
  // group's session ids in a list: most of a batch took the same few quizzes, so this
  // sends and parses ~40 bytes a session rather than a whole row.
  type Group = { s: SessionRecord; ids: string[] };
  const groups = new Map<RecordedAnswer, Map<string, Map<string, Group>>>();
  const list: Group[] = [];
  const answers = new Map<string, SessionRecord>();
  const seen = new Set<string>();
  // newest first: the latest answer of a session wins within a batch
  for (let i = batch.length - 1; i >= 0; i--) {
    const s = batch[i] as SessionRecord;
    if (seen.has(s.id)) continue;
    seen.add(s.id);
    let byKey = groups.get(s.answer);
    if (!byKey) {
      byKey = new Map();
      groups.set(s.answer, byKey);
      if (!storedAnswers.has(s.answer.id)) answers.set(s.answer.id, s);
    }
    let byLocale = byKey.get(s.keyId);
    if (!byLocale) {
      byLocale = new Map();
      byKey.set(s.keyId, byLocale);
    }
    let group = byLocale.get(s.locale);
    if (!group) {
      group = { s, ids: [] };
      byLocale.set(s.locale, group);
      list.push(group);
    }
    group.ids.push(s.id);
  }
  // ids are bare UUIDs (checked at the door, or ours), so they need no escaping
  const rows = list.map(
    ({ s, ids }) =>
      `{"merchant_id":"${s.merchantId}","key_id":"${s.keyId}","test":${s.test},"locale":${JSON.stringify(s.locale)},"answer_id":"${s.answer.id}","ids":["${ids.join('","')}"]}`,
  );
  const answerRows = [...answers.values()].map(
    (s) =>
      `{"id":"${s.answer.id}","merchant_id":"${s.merchantId}","quiz":${s.answer.quizJson},"shown":${s.answer.shownJson}}`,
  );
  // a prepared statement: its text never changes (docs/decisions.md)
  await executePrepared(sql`
    with g as (
      select * from json_to_recordset(${`[${rows.join(',')}]`}::json)
        as g(merchant_id uuid, key_id uuid, test boolean, locale text, answer_id uuid, ids json)
    ), m as (
      select id from ${merchants} where id in (select merchant_id from g) for key share
    ), k as (
      select id from ${apiKeys} where id in (select key_id from g) for key share
    ), a as (
      insert into ${widgetAnswers} (id, merchant_id, quiz, shown)
      select a.id, a.merchant_id, a.quiz, a.shown
      from json_to_recordset(${`[${answerRows.join(',')}]`}::json)
        as a(id uuid, merchant_id uuid, quiz json, shown json)
      join m on m.id = a.merchant_id
      on conflict (id) do nothing
    )
    insert into ${widgetSessions} (id, merchant_id, key_id, test, locale, answer_id)
    select s.id::uuid, g.merchant_id, k.id, g.test, g.locale, g.answer_id
    from g join m on m.id = g.merchant_id left join k on k.id = g.key_id
      cross join lateral json_array_elements_text(g.ids) as s(id)
    -- a session id is the client's within its merchant and kind of key (the primary key): one
    -- merchant's session never overwrites another's, nor a test key's a live one's
    on conflict (id, merchant_id, test) do update set answer_id = excluded.answer_id, locale = excluded.locale`);
  for (const id of answers.keys()) storedAnswers.set(id, true);
}

/** A key, as far as its sessions go: its merchant and kind make the session's namespace. */
export interface SessionKey {
  id: string;
  merchantId: string;
  test: boolean;
}

/** What a lead needs of its score session: its language and the products it showed. */
export interface ScoredSession {
  locale: string;
  /** [{merchant_product_id, position, match_score, list}], as stored (RecordedAnswer.shownJson) */
  shown: unknown;
}

/** A stored score session of the key's merchant and kind answered for this key, or null. */
export async function sessionOfKey(
  db: Database['db'],
  sessionId: string,
  key: SessionKey,
): Promise<ScoredSession | null> {
  const [row] = await db
    .select({ keyId: widgetSessions.keyId, locale: widgetSessions.locale, shown: widgetAnswers.shown })
    .from(widgetSessions)
    .leftJoin(widgetAnswers, eq(widgetAnswers.id, widgetSessions.answerId))
    .where(
      and(
        eq(widgetSessions.id, sessionId),
        eq(widgetSessions.merchantId, key.merchantId),
        eq(widgetSessions.test, key.test),
      ),
    )
    .limit(1);
  return row && row.keyId === key.id ? { locale: row.locale, shown: row.shown ?? [] } : null;
}
