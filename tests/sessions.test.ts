import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { eq, inArray, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../db/client.ts';
import { answerId, recordedAnswer, type SessionRecord } from '../plugins/app/sessions.ts';
import { apiKeys, merchants, widgetAnswers, widgetSessions } from '../schema/index.ts';
import { buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
});
afterAll(() => closeTestApp(app));

const quizJson =
  '{"families":["oud"],"ratings":[["oud","love"]],"season":null,"occasion":null,"catalog_mode":"synced"}';
const shownJson = '[{"merchant_product_id":"p1","position":1,"match_score":91,"list":"recommendations"}]';
let n = 0;
const sessionId = () => `aaaaaaaa-0000-4000-8000-${String(++n).padStart(12, '0')}`;

function session(merchantId: string, keyId: string, over: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id: sessionId(),
    merchantId,
    keyId,
    test: false,
    locale: 'ar',
    answer: recordedAnswer(merchantId, quizJson, shownJson),
    ...over,
  };
}

describe('session log', () => {
  it('an answer id is a UUID that changes with the merchant, the quiz and the products shown', () => {
    const base = answerId('m1', quizJson, shownJson);
    expect(base).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(answerId('m1', quizJson, shownJson)).toBe(base);
    expect(answerId('m2', quizJson, shownJson)).not.toBe(base);
    expect(answerId('m1', quizJson.replace('oud', 'rose'), shownJson)).not.toBe(base);
    expect(answerId('m1', quizJson, shownJson.replace('91', '90'))).not.toBe(base);
  });

  it('a session whose merchant is gone is dropped; the rest of its batch is stored and nothing is retried', async () => {
    const { merchant, keyId } = await merchantAndKey();
    const gone = '00000000-0000-4000-8000-00000000dead';
    const kept = session(merchant.id, keyId);
    const orphan = session(gone, keyId);
    app.sessions.record(orphan);
    app.sessions.record(kept);
    await app.sessions.flush();
    const rows = await storedSessions([kept.id, orphan.id]);
    expect(rows.map((r) => r.id)).toEqual([kept.id]);
    const orphanAnswers = await app.db.select().from(widgetAnswers).where(eq(widgetAnswers.merchantId, gone));
    expect(orphanAnswers).toEqual([]);
  });

  it('flush writes what was queued while an earlier batch was being written', async () => {
    const { merchant, keyId } = await merchantAndKey();
    const early = session(merchant.id, keyId);
    const late = session(merchant.id, keyId);
    app.sessions.record(early);
    const writing = app.sessions.flush();
    app.sessions.record(late);
    await app.sessions.flush();
    await writing;
    const rows = await storedSessions([early.id, late.id]);
    expect(rows).toHaveLength(2);
  });

  it('a session whose key was deleted is stored without its key', async () => {
    const { merchant } = await merchantAndKey();
    const s = session(merchant.id, '00000000-0000-4000-8000-0000000000ee');
    app.sessions.record(s);
    await app.sessions.flush();
    const [row] = await app.db.select().from(widgetSessions).where(eq(widgetSessions.id, s.id));
    expect(row).toMatchObject({ merchantId: merchant.id, keyId: null, answerId: s.answer.id });
  });

  it('deleting a key clears it from its sessions; deleting a merchant deletes its sessions and answers', async () => {
    const { merchant, keyId } = await merchantAndKey();
    const { merchant: other, keyId: otherKey } = await merchantAndKey();
    const mine = session(merchant.id, keyId);
    const theirs = session(other.id, otherKey);
    app.sessions.record(mine);
    app.sessions.record(theirs);
    await app.sessions.flush();

    await app.db.delete(apiKeys).where(eq(apiKeys.id, keyId));
    const [row] = await app.db.select().from(widgetSessions).where(eq(widgetSessions.id, mine.id));
    expect(row?.keyId).toBeNull();

    await app.db.delete(merchants).where(eq(merchants.id, merchant.id));
    expect(await app.db.select().from(widgetSessions).where(eq(widgetSessions.merchantId, merchant.id))).toEqual([]);
    expect(await app.db.select().from(widgetAnswers).where(eq(widgetAnswers.merchantId, merchant.id))).toEqual([]);
    // the other merchant's session is untouched
    const [kept] = await app.db.select().from(widgetSessions).where(eq(widgetSessions.id, theirs.id));
    expect(kept).toMatchObject({ keyId: otherKey, answerId: theirs.answer.id });
  });

  it('a later session that got a stored answer points to that answer', async () => {
    const { merchant, keyId } = await merchantAndKey();
    const first = session(merchant.id, keyId);
    app.sessions.record(first);
    await app.sessions.flush();
    const [stored] = await app.db.select().from(widgetAnswers).where(eq(widgetAnswers.id, first.answer.id));
    expect(stored?.shown).toEqual(JSON.parse(shownJson));
    const second = session(merchant.id, keyId);
    app.sessions.record(second);
    await app.sessions.flush();
    const rows = await storedSessions([first.id, second.id]);
    expect(rows.map((r) => r.answerId)).toEqual([first.answer.id, first.answer.id]);
  });
});

describe('migration 0006', () => {
  const folder = join(import.meta.dirname, '..', 'drizzle');
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'migrations-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** the migrations folder as it stood before the given migration */
  function folderBefore(tag: string): string {
    cpSync(folder, dir, { recursive: true });
    const journalFile = join(dir, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
    journal.entries = journal.entries.slice(
      0,
      journal.entries.findIndex((e) => e.tag === tag),
    );
    writeFileSync(journalFile, JSON.stringify(journal));
    return dir;
  }

  it('moves the session log: each distinct quiz and shown list stored once, every session kept with its key, locale and date', async () => {
    const pg = new PGlite();
    const db = drizzle(pg);
    await migrate(db, { migrationsFolder: folderBefore('0006_session_answers') });
    const [m] = rowsOf<{ id: string }>(
      await db.execute(sql`insert into merchants (name, slug) values ('Old', 'old') returning id`),
    );
    const [k] = rowsOf<{ id: string }>(
      await db.execute(
        sql`insert into api_keys (merchant_id, mode, prefix, key_hash) values (${m?.id}, 'live', 'pk_live_x', 'h') returning id`,
      ),
    );
    const quizA = '{"families":["oud"],"ratings":[["oud","love"]],"catalog_mode":"synced"}';
    const quizB = '{"families":["citrus"],"ratings":[],"catalog_mode":"inline"}';
    const rows = [
      ['b0000000-0000-4000-8000-000000000001', quizA, shownJson, '2026-01-01T00:00:00Z', 'ar'],
      ['b0000000-0000-4000-8000-000000000002', quizA, shownJson, '2026-01-02T00:00:00Z', 'en'],
      ['b0000000-0000-4000-8000-000000000003', quizB, '[]', '2026-01-03T00:00:00Z', 'ar'],
    ] as const;
    for (const [id, quiz, shown, at, locale] of rows) {
      await db.execute(sql`
        insert into widget_sessions (id, merchant_id, key_id, test, locale, quiz, shown, created_at)
        values (${id}, ${m?.id}, ${k?.id}, false, ${locale}, ${quiz}::json, ${shown}::json, ${at})`);
    }

    await migrate(db, { migrationsFolder: folder });

    const sessions = rowsOf<{ id: string; key_id: string; locale: string; answer_id: string; created_at: unknown }>(
      await db.execute(sql`select id, key_id, locale, answer_id, created_at from widget_sessions order by id`),
    );
    expect(sessions.map((s) => [s.id, s.key_id, s.locale])).toEqual(rows.map((r) => [r[0], k?.id, r[4]]));
    expect(sessions.map((s) => new Date(s.created_at as string).toISOString())).toEqual(
      rows.map((r) => new Date(r[3]).toISOString()),
    );
    // the ids the service computes, so sessions recorded after the upgrade share these answers
    expect(sessions.map((s) => s.answer_id)).toEqual([
      answerId(m?.id as string, quizA, shownJson),
      answerId(m?.id as string, quizA, shownJson),
      answerId(m?.id as string, quizB, '[]'),
    ]);
    const answers = rowsOf<{ id: string; quiz: unknown; shown: unknown }>(
      await db.execute(sql`select id, quiz, shown from widget_answers order by created_at`),
    );
    expect(answers).toHaveLength(2);
    expect(answers[0]).toMatchObject({ quiz: JSON.parse(quizA), shown: JSON.parse(shownJson) });
    expect(answers[1]).toMatchObject({ quiz: JSON.parse(quizB), shown: [] });
    await pg.close();
  });
});

async function merchantAndKey() {
  const m = await createMerchantWithKey(app);
  const [key] = await app.db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.merchantId, m.merchant.id));
  return { merchant: m.merchant, keyId: key?.id as string };
}

/** the stored session rows among these ids */
function storedSessions(ids: string[]) {
  return app.db
    .select({ id: widgetSessions.id, answerId: widgetSessions.answerId })
    .from(widgetSessions)
    .where(inArray(widgetSessions.id, ids))
    .orderBy(widgetSessions.id);
}
