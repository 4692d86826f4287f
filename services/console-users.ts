import { createHash, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { and, asc, eq, gt, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client.ts';
import { AppError, badRequest, notFound } from '../lib/errors.ts';
import { consoleSessions, consoleTickets, consoleUsers, merchants } from '../schema/index.ts';
import { getMerchant } from './merchants.ts';

export type ConsoleRole = 'operator' | 'owner' | 'staff';
export const CONSOLE_ROLES: readonly ConsoleRole[] = ['operator', 'owner', 'staff'];

export interface ConsoleUser {
  id: string;
  email: string;
  role: ConsoleRole;
  /** null for an operator */
  merchantId: string | null;
}

/** Shortest and longest password accepted: long enough to resist guessing, short enough to bound hashing. */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

/**
 * Argon2id with OWASP's second recommended setting (19 MiB, 2 passes, 1 lane): a guess costs an
 * attacker memory as well as time, and a sign-in costs the server about 20 ms.
 */
const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** A well-formed hash of a password nobody has: a sign-in with an unknown email costs what a real one does. */
let decoyHash: Promise<string> | null = null;

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/** An operator, or a user whose merchant is not being erased: the users of an erased merchant sign in no more. */
const notErased = sql`(${consoleUsers.merchantId} is null or not exists (
  select 1 from ${merchants} m where m.id = ${consoleUsers.merchantId} and m.erased_at is not null))`;
const EMAIL_RE = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{1,63}$/;

export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw badRequest('invalid_console_user', `A password is ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long`);
  }
}

const view = (r: typeof consoleUsers.$inferSelect): ConsoleUser => ({
  id: r.id,
  email: r.email,
  role: r.role,
  merchantId: r.merchantId,
});

/** A console user as the admin API and the CLI show it. */
export const consoleUserView = (u: ConsoleUser) => ({
  id: u.id,
  email: u.email,
  role: u.role,
  merchant_id: u.merchantId,
});

/**
 * Creates a console user; an owner or staff member belongs to one merchant (id or slug). An
 * address is one account's. `proven` (the default) says the address is vouched for — the
 * operator's word, or the platform's a store installed from — and then an account someone else
 * made with it unproven (a WooCommerce connection, an owner's Team page) yields: it is removed,
 * with its sessions, and this one made. An unproven address is refused (`email_taken`) when any
 * account has it.
 */
export async function createConsoleUser(
  db: DbOrTx,
  input: { email: string; password: string; role: ConsoleRole; merchant?: string | null; proven?: boolean },
): Promise<ConsoleUser> {
  const email = normaliseEmail(input.email);
  if (!EMAIL_RE.test(email)) throw badRequest('invalid_console_user', 'Give a valid email address');
  if (!CONSOLE_ROLES.includes(input.role))
    throw badRequest('invalid_console_user', 'The role is operator, owner or staff');
  checkPassword(input.password);
  let merchantId: string | null = null;
  if (input.role !== 'operator') {
    if (!input.merchant)
      throw badRequest('invalid_console_user', 'An owner or staff member belongs to a merchant: name it');
    merchantId = (await getMerchant(db, input.merchant)).id;
  }
  const proven = input.proven ?? true;
  const passwordHash = await hash(input.password, ARGON2);
  const insert = async () =>
    (
      await db
        .insert(consoleUsers)
        .values({ email, passwordHash, role: input.role, merchantId, emailProven: proven })
        .onConflictDoNothing()
        .returning()
    )[0];
  let row = await insert();
  if (!row && proven && (await releaseUnproven(db, email))) row = await insert();
  if (!row) throw new AppError(409, 'email_taken', 'A console user with this email already exists');
  return view(row);
}

/** Removes the account holding this address when nobody vouched for it (its sessions go with it); whether one was. */
async function releaseUnproven(db: DbOrTx, email: string): Promise<boolean> {
  const gone = await db
    .delete(consoleUsers)
    .where(and(eq(consoleUsers.email, email), eq(consoleUsers.emailProven, false)))
    .returning({ id: consoleUsers.id });
  return gone.length > 0;
}

/** The user whose email and password these are, or null: the same work whether or not the email exists. */
export async function signInUser(db: DbOrTx, email: string, password: string): Promise<ConsoleUser | null> {
  if (password.length > PASSWORD_MAX) return null;
  const [row] = await db
    .select()
    .from(consoleUsers)
    .where(and(eq(consoleUsers.email, normaliseEmail(email).slice(0, 320)), notErased))
    .limit(1);
  if (!row) {
    decoyHash ??= hash('no user has this password', ARGON2);
    await verify(await decoyHash, password).catch(() => false);
    return null;
  }
  const ok = await verify(row.passwordHash, password).catch(() => false);
  if (!ok) return null;
  await db.update(consoleUsers).set({ lastSignInAt: new Date() }).where(eq(consoleUsers.id, row.id));
  return view(row);
}

export async function getConsoleUser(db: DbOrTx, id: string): Promise<ConsoleUser | null> {
  const [row] = await db
    .select()
    .from(consoleUsers)
    .where(and(eq(consoleUsers.id, id), notErased))
    .limit(1);
  return row ? view(row) : null;
}

export async function countOperators(db: DbOrTx): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(consoleUsers)
    .where(eq(consoleUsers.role, 'operator'));
  return Number(row?.n ?? 0);
}

/** A merchant's console users (owner and staff), for its team page. */
export async function listMerchantUsers(db: DbOrTx, merchantId: string) {
  const rows = await db
    .select()
    .from(consoleUsers)
    .where(eq(consoleUsers.merchantId, merchantId))
    .orderBy(asc(consoleUsers.createdAt));
  return rows.map((r) => ({ ...view(r), createdAt: r.createdAt, lastSignInAt: r.lastSignInAt }));
}

/** Removes a merchant's user (their sessions go with them). */
export async function removeMerchantUser(db: DbOrTx, merchantId: string, userId: string): Promise<void> {
  const gone = await db
    .delete(consoleUsers)
    .where(and(eq(consoleUsers.id, userId), eq(consoleUsers.merchantId, merchantId)))
    .returning({ id: consoleUsers.id });
  if (gone.length === 0) throw notFound('user_not_found', 'This merchant has no such user');
}

/** Removes a console user by email (the demo's owner, when its password was lost); whether one was. */
export async function deleteConsoleUserByEmail(db: DbOrTx, email: string): Promise<boolean> {
  const gone = await db
    .delete(consoleUsers)
    .where(eq(consoleUsers.email, normaliseEmail(email)))
    .returning({ id: consoleUsers.id });
  return gone.length > 0;
}

// ---- sessions (the store behind @fastify/session) ----

/** The session id as stored: its SHA-256, so the table holds no cookie anyone could send. */
const idHash = (sessionId: string) => createHash('sha256').update(sessionId).digest('hex');

export async function loadConsoleSession(db: DbOrTx, sessionId: string): Promise<Record<string, unknown> | null> {
  const [row] = await db
    .select({ data: consoleSessions.data })
    .from(consoleSessions)
    .where(and(eq(consoleSessions.idHash, idHash(sessionId)), gt(consoleSessions.expiresAt, new Date())))
    .limit(1);
  return (row?.data as Record<string, unknown> | undefined) ?? null;
}

export async function saveConsoleSession(
  db: DbOrTx,
  sessionId: string,
  userId: string,
  data: Record<string, unknown>,
  expiresAt: Date,
): Promise<void> {
  await db
    .insert(consoleSessions)
    .values({ idHash: idHash(sessionId), userId, data, expiresAt })
    .onConflictDoUpdate({ target: consoleSessions.idHash, set: { data, expiresAt } });
}

export async function destroyConsoleSession(db: DbOrTx, sessionId: string): Promise<void> {
  await db.delete(consoleSessions).where(eq(consoleSessions.idHash, idHash(sessionId)));
}

/** Removes expired sessions and sign-in tickets; how many. */
export async function purgeConsoleSessions(db: DbOrTx, now = new Date()): Promise<number> {
  const gone = await db
    .delete(consoleSessions)
    .where(lt(consoleSessions.expiresAt, now))
    .returning({ id: consoleSessions.idHash });
  const tickets = await db
    .delete(consoleTickets)
    .where(lt(consoleTickets.expiresAt, now))
    .returning({ hash: consoleTickets.hash });
  return gone.length + tickets.length;
}

// ---- one-time sign-in tickets ----

/** A sign-in ticket signs its user in within this long of being made, once. */
export const TICKET_MS = 5 * 60_000;

/** A new one-time ticket that signs this user in (only its hash is stored). */
export async function createConsoleTicket(db: DbOrTx, userId: string, now = new Date()): Promise<string> {
  const ticket = randomBytes(32).toString('base64url');
  await db
    .insert(consoleTickets)
    .values({ hash: idHash(ticket), userId, expiresAt: new Date(now.getTime() + TICKET_MS) });
  return ticket;
}

/** The user a ticket would sign in, without spending it (null when expired, spent or never made). */
export async function peekConsoleTicket(db: DbOrTx, ticket: string, now = new Date()): Promise<ConsoleUser | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(ticket)) return null;
  const [row] = await db
    .select({ userId: consoleTickets.userId })
    .from(consoleTickets)
    .where(and(eq(consoleTickets.hash, idHash(ticket)), gt(consoleTickets.expiresAt, now)))
    .limit(1);
  return row ? getConsoleUser(db, row.userId) : null;
}

/**
 * The user a ticket signs in, spending the ticket: a second use, an expired ticket or one never
 * made gives null. One statement, so two requests racing with one ticket cannot both win.
 */
export async function takeConsoleTicket(db: DbOrTx, ticket: string, now = new Date()): Promise<ConsoleUser | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(ticket)) return null;
  const [taken] = await db
    .delete(consoleTickets)
    .where(and(eq(consoleTickets.hash, idHash(ticket)), gt(consoleTickets.expiresAt, now)))
    .returning({ userId: consoleTickets.userId });
  return taken ? getConsoleUser(db, taken.userId) : null;
}

/**
 * The console account a platform store's manager lands in after installing the app: the owner or
 * staff member of this merchant with that email, else a new owner with a random password (the
 * platform's sign-in is their way in; an operator can give them a password later). Null when the
 * email is missing or not plain ASCII, or belongs to an operator or to another merchant's user: no
 * one is signed in to an account the install did not prove is theirs.
 *
 * `proven`: whether the platform vouches for the email (Salla, Zid and Shopify say whose store it
 * is; a WooCommerce store, which anyone can run, only types it). A proven email takes the address
 * from an account someone else made with it unproven for another merchant (it is removed), and
 * makes this merchant's account with it proven; an unproven one never takes an address, and its
 * new account yields to whoever proves the address later.
 */
export async function platformOwner(
  db: DbOrTx,
  merchantId: string,
  email: string | null,
  o: { proven: boolean },
): Promise<ConsoleUser | null> {
  // plain ASCII only: lower-casing some other characters (the Kelvin sign) gives another address's letters
  if (!email || /[^\x20-\x7e]/.test(email) || !EMAIL_RE.test(normaliseEmail(email))) return null;
  const find = async () =>
    (
      await db
        .select()
        .from(consoleUsers)
        .where(eq(consoleUsers.email, normaliseEmail(email)))
        .limit(1)
    )[0];
  let row = await find();
  // another merchant's account that nobody vouched for yields to the address proven here
  const yields = row !== undefined && o.proven && !row.emailProven && row.merchantId !== merchantId;
  if (!row || yields) {
    try {
      return await createConsoleUser(db, {
        email,
        password: randomBytes(32).toString('base64url'),
        role: 'owner',
        merchant: merchantId,
        proven: o.proven,
      });
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'email_taken')) throw err;
      row = await find();
    }
  }
  if (!row || row.role === 'operator' || row.merchantId !== merchantId) return null;
  if (o.proven && !row.emailProven) {
    await db.update(consoleUsers).set({ emailProven: true }).where(eq(consoleUsers.id, row.id));
  }
  return view(row);
}
