import { AppError } from './errors.ts';

/**
 * Settles as `work` does, or rejects with `onTimeout()` once `ms` have passed,
 * whichever is first. The work itself goes on (a query sent cannot be taken
 * back); only the wait for it ends.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => unknown): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** 503 for a database that did not answer in time: nothing was stored, the same request may be sent again. */
export const databaseTimeout = (what: string) =>
  new AppError(503, 'database_unavailable', `${what}: the database did not answer in time, retry shortly`, undefined, {
    'retry-after': '5',
  });

/**
 * 503 for a write whose COMMIT was sent but not answered in time: it may or
 * may not be stored. Sent again with the same ids (event_id, order_id) it is
 * stored once.
 */
export const writeOutcomeUnknown = () =>
  new AppError(
    503,
    'write_outcome_unknown',
    'The database did not confirm the write in time; it may have been stored. Send it again with the same event_id: it is stored once',
    undefined,
    { 'retry-after': '5' },
  );

/** Thrown inside a transaction that was given up on: it rolls back instead of committing. */
export class AbandonedWrite extends Error {
  override name = 'AbandonedWrite';
  constructor() {
    super('the write was given up on before its commit');
  }
}

/**
 * Decides, once, whether a transaction may commit or was given up on, so that
 * an answer "not stored" is never followed by a commit. The transaction calls
 * `beforeCommit()` as its last step (and may call `stillWanted()` before its
 * work); whoever waits on it calls `abandon()` when its deadline passes. The
 * first of the two wins: `abandon()` answers false once the commit may be on
 * its way, and the waiter then cannot say "not stored".
 */
export class CommitGuard {
  private state: 'working' | 'committing' | 'abandoned' = 'working';

  /** throws AbandonedWrite (the transaction rolls back) if the waiter gave up */
  stillWanted(): void {
    if (this.state === 'abandoned') throw new AbandonedWrite();
  }

  /** the transaction's last step: from here the write may be stored */
  beforeCommit(): void {
    this.stillWanted();
    this.state = 'committing';
  }

  /** true: the transaction will not commit; false: its commit may already be on its way */
  abandon(): boolean {
    if (this.state === 'working') this.state = 'abandoned';
    return this.state === 'abandoned';
  }

  get committing(): boolean {
    return this.state === 'committing';
  }
}
