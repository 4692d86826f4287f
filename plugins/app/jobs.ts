import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import fp from 'fastify-plugin';
import PgBoss from 'pg-boss';
import { pgErrorCode } from '../../lib/errors.ts';

/** One kind of background work: what it does, and how often it comes back by itself. */
export interface JobDefinition<T extends object> {
  /** the work; `closing()` turns true once the instance is stopping: long work stops at a safe point */
  run(data: T, closing: () => boolean): Promise<void>;
  /** sent again every this many minutes (a divisor of 60, or whole hours dividing 24): once for all instances */
  everyMinutes?: number;
  /** on PostgreSQL, how long one run may take before it is taken as lost and given to another instance */
  expireMinutes?: number;
  /** on PostgreSQL, how many times a failed run is tried again (on whichever instance is free) */
  retries?: number;
  /** on PostgreSQL, how long after a failed run it is tried again (60 s) */
  retryDelaySeconds?: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    jobs: {
      /** `pg-boss` on PostgreSQL (one queue for every instance), `in-process` on the embedded database */
      readonly kind: 'pg-boss' | 'in-process';
      /** declares a kind of work; only while the app is being built (before ready) */
      define<T extends object>(name: string, definition: JobDefinition<T>): void;
      /**
       * Queues one run. With a key, a run of the same name and key already waiting is the one that
       * happens (one waits, one runs, whatever the number of instances sending).
       */
      send<T extends object>(name: string, data: T, key?: string): Promise<void>;
      /** resolves once nothing is waiting or running (on PostgreSQL: on any instance), or rejects after timeoutMs */
      drain(timeoutMs?: number): Promise<void>;
    };
  }
}

/** How long the runner waits before trying to start again when the database did not answer. */
const START_RETRY_MS = 5_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How often an instance asks PostgreSQL for work sent by another instance (its own is taken at once). */
export const JOB_POLL_SECONDS = 2;
/** Runs of a job the database ends for a conflict with another writer, at most, before it fails. */
export const CONFLICT_RUNS = 3;
/** SQLSTATEs of a conflict with another writer: a deadlock, a serialization failure. */
const CONFLICTS = new Set(['40P01', '40001']);
/**
 * How long a send waits at most for a runner that is starting: a first start on a new database
 * takes seconds, and a failed attempt is tried again after START_RETRY_MS.
 */
export const SEND_WAIT_MS = 15_000;

/** The five-field cron expression of "every `minutes` minutes". */
export function cronEvery(minutes: number): string {
  if (Number.isInteger(minutes) && minutes >= 1 && minutes < 60 && 60 % minutes === 0) {
    return minutes === 1 ? '* * * * *' : `*/${minutes} * * * *`;
  }
  const hours = minutes / 60;
  if (Number.isInteger(hours) && hours >= 1 && hours <= 24 && 24 % hours === 0) {
    return hours === 24 ? '0 0 * * *' : `0 */${hours} * * *`;
  }
  throw new Error(`every ${minutes} minutes: use a divisor of 60 minutes, or whole hours dividing 24`);
}

interface Runner {
  start(definitions: Map<string, JobDefinition<object>>): Promise<void>;
  send(name: string, data: object, key: string | undefined): Promise<void>;
  drain(timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

type Log = { warn(o: object, msg: string): void; error(o: object, msg: string): void };

/**
 * The background work of the service, one runner for all of it (docs/operations.md, "Background
 * work"): feed pulls and their dispatch, the retention purges and the re-matching after a catalog
 * upgrade. On PostgreSQL it is pg-boss, a maintained job queue in the database itself (schema
 * `pgboss`): a run is taken by one instance, a recurring one is sent once for all of them, a run
 * lost with its instance is taken over after its expiry. On the embedded database, one process, it
 * is an in-process queue with the same rules: one run per name at a time, one waiting per key.
 */
export default fp(
  async (app) => {
    /**
     * A run the database ended for a conflict with another writer (a deadlock: a sync or a request
     * writing the same rows in another order; a serialization failure) is run again at once, up to
     * CONFLICT_RUNS times: every job's work is safe to run again, and waiting for pg-boss's retry a
     * minute later (or the next send, in process) leaves the work undone meanwhile.
     */
    async function runThroughConflicts(
      name: string,
      run: JobDefinition<object>['run'],
      data: object,
      closing: () => boolean,
    ): Promise<void> {
      for (let attempt = 1; ; attempt++) {
        try {
          return await run(data, closing);
        } catch (err) {
          if (attempt >= CONFLICT_RUNS || !CONFLICTS.has(pgErrorCode(err) ?? '') || closing()) throw err;
          app.log.warn(
            { err, job: name, attempt },
            'background job ended by a conflict with another writer; run again',
          );
        }
      }
    }
    const definitions = new Map<string, JobDefinition<object>>();
    let closing = false;
    const isClosing = () => closing;
    const url = app.database.url;
    const runner: Runner = url ? pgBossRunner(url, app.log, isClosing) : inProcessRunner(app.log, isClosing);
    let started: Promise<void> | null = null;

    app.decorate('jobs', {
      kind: url ? ('pg-boss' as const) : ('in-process' as const),
      define<T extends object>(name: string, definition: JobDefinition<T>) {
        if (started) throw new Error(`job ${name} defined after the app started`);
        if (definitions.has(name)) throw new Error(`job ${name} defined twice`);
        if (definition.everyMinutes !== undefined) cronEvery(definition.everyMinutes);
        definitions.set(name, {
          ...(definition as JobDefinition<object>),
          run: (data, closing) =>
            runThroughConflicts(name, definition.run as JobDefinition<object>['run'], data, closing),
        });
      },
      async send<T extends object>(name: string, data: T, key?: string) {
        if (!definitions.has(name)) throw new Error(`no job named ${name}`);
        if (!started) throw new Error(`job ${name} sent before the app started`);
        // a runner still starting is waited for (through a failed attempt or two: instances starting
        // together on a new database race to create its schema), never for ever: after
        // SEND_WAIT_MS the send is refused, a request that sends work answers, and the work's own
        // dispatch sends it again later
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          started,
          new Promise((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`job ${name} not sent: background jobs have not started (database unreachable?)`)),
              SEND_WAIT_MS,
            );
          }),
        ]).finally(() => clearTimeout(timer));
        if (closing) return;
        await runner.send(name, data, key);
      },
      // a test's wait: under vitest's 30 s per test, so a run still open is reported as such
      async drain(timeoutMs = 25_000) {
        if (started) await started;
        await runner.drain(timeoutMs);
      },
    });
    // First of the onReady hooks that send work (the plugins that define jobs register after this
    // one). The service starts without its database (readiness says 503): the runner then starts
    // as soon as the database answers, and work sent meanwhile waits for it.
    app.addHook('onReady', async () => {
      started = (async () => {
        for (let attempt = 1; ; attempt++) {
          try {
            await runner.start(definitions);
            return;
          } catch (err) {
            await runner.stop().catch(() => {});
            if (closing) throw err;
            app.log.error({ err, attempt }, 'background jobs could not start (database unreachable?); trying again');
            for (let waited = 0; waited < START_RETRY_MS && !closing; waited += 100) await sleep(100);
          }
        }
      })();
      started.catch(() => {});
    });
    app.addHook('preClose', async () => {
      closing = true;
    });
    app.addHook('onClose', async () => {
      closing = true;
      if (started) await started.catch(() => {});
      await runner.stop();
    });
  },
  { name: 'jobs', dependencies: ['database'] },
);

/** pg-boss on the service's PostgreSQL: its own small pool, its own schema. */
function pgBossRunner(url: string, log: Log, closing: () => boolean): Runner {
  /** the started queue (a new one for each attempt to start) */
  let boss: PgBoss | null = null;
  const workers = new Map<string, string>();
  let names: string[] = [];
  const started = () => {
    if (!boss) throw new Error('background jobs not started');
    return boss;
  };
  return {
    async start(definitions) {
      const b = newBoss(url, log);
      boss = b;
      workers.clear();
      await b.start();
      names = [...definitions.keys()];
      const schedules = new Set((await b.getSchedules()).map((s) => s.name));
      for (const [name, d] of definitions) {
        const queue = {
          name,
          policy: 'stately' as const,
          retryLimit: d.retries ?? 0,
          retryDelay: d.retryDelaySeconds ?? 60,
          expireInSeconds: (d.expireMinutes ?? 15) * 60,
        };
        if (await b.getQueue(name)) await b.updateQueue(name, queue);
        else await b.createQueue(name, queue);
        const worker = await b.work<object>(
          name,
          { batchSize: 1, pollingIntervalSeconds: JOB_POLL_SECONDS },
          async ([job]) => {
            if (!job) return;
            try {
              await d.run(job.data, closing);
            } finally {
              // one run done: look for the next at once (pg-boss waits its polling interval after each otherwise)
              b.notifyWorker(worker);
            }
          },
        );
        workers.set(name, worker);
        if (d.everyMinutes !== undefined) await b.schedule(name, cronEvery(d.everyMinutes), {}, { tz: 'UTC' });
        else if (schedules.has(name)) await b.unschedule(name);
      }
    },
    async send(name, data, key) {
      const b = started();
      // stately queues keep one waiting run per key: a run sent without a key is one of its own
      await b.send(name, data, { singletonKey: key ?? randomUUID() });
      // this instance takes it at once; the others would wait for their next poll
      const worker = workers.get(name);
      if (worker) b.notifyWorker(worker);
    },
    async drain(timeoutMs) {
      const b = started();
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        // one statement, one snapshot: counted queue by queue, a run finishing between two counts
        // after sending another would hide both
        const { rows } = await b
          .getDb()
          .executeSql(`select count(*)::int as open from pgboss.job where name = any($1) and state < 'completed'`, [
            names,
          ]);
        const open = Number((rows[0] as { open: number } | undefined)?.open ?? 0);
        if (open === 0) return;
        if (Date.now() > deadline) {
          // which runs, in which state, and a failed one's error: what a test's report should say
          const { rows: which } = await b.getDb().executeSql(
            `select name, state, retry_count, left(output::text, 300) as output from pgboss.job
               where name = any($1) and state < 'completed' order by created_on limit 5`,
            [names],
          );
          throw new Error(`background jobs still open after ${timeoutMs} ms: ${open}: ${JSON.stringify(which)}`);
        }
        await sleep(25);
      }
    },
    async stop() {
      // the runs in hand finish (they stop early at a safe point: `closing`), then the pool closes
      await boss?.stop({ graceful: true, wait: true, timeout: 60_000 });
    },
  };
}

function newBoss(url: string, log: Log): PgBoss {
  const boss = new PgBoss({
    connectionString: url,
    // a URL naming no user connects as the postgres driver of the service does: PGUSER, else this
    // system user (node-postgres alone would send none when USER is unset)
    ...(new URL(url).username ? {} : { user: process.env.PGUSER || userInfo().username }),
    max: 3,
    application_name: 'sillage-jobs',
    // the service's own jobs are small; a week of their history is plenty to read what happened
    deleteAfterDays: 7,
  });
  boss.on('error', (err) => log.warn({ err }, 'background jobs: a database call failed; pg-boss tries again'));
  return boss;
}

/** One process: each name runs one at a time, in the order sent; a key waits at most once. */
function inProcessRunner(log: Log, closing: () => boolean): Runner {
  const queues = new Map<string, { waiting: Map<string, object>; running: Promise<void> | null }>();
  const timers: NodeJS.Timeout[] = [];
  let definitions = new Map<string, JobDefinition<object>>();
  let anonymous = 0;

  const pump = (name: string) => {
    const q = queues.get(name);
    const d = definitions.get(name);
    if (!q || !d || q.running) return;
    q.running = (async () => {
      while (q.waiting.size > 0 && !closing()) {
        const [key, data] = q.waiting.entries().next().value as [string, object];
        q.waiting.delete(key);
        try {
          await d.run(data, closing);
        } catch (err) {
          log.error({ err, job: name }, 'background job failed; it runs again when next sent');
        }
      }
    })().finally(() => {
      q.running = null;
    });
  };
  return {
    async start(defs) {
      definitions = defs;
      for (const [name, d] of defs) {
        queues.set(name, { waiting: new Map(), running: null });
        if (d.everyMinutes !== undefined) {
          const timer = setInterval(() => {
            const q = queues.get(name);
            if (q && !q.waiting.has('every')) q.waiting.set('every', {});
            pump(name);
          }, d.everyMinutes * 60_000);
          timer.unref();
          timers.push(timer);
        }
      }
    },
    async send(name, data, key) {
      const q = queues.get(name);
      if (!q) return;
      const k = key ?? `#${anonymous++}`;
      if (!q.waiting.has(k)) q.waiting.set(k, data);
      pump(name);
    },
    async drain(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const running = [...queues.values()].map((q) => q.running).filter((r): r is Promise<void> => r !== null);
        if (running.length === 0) return;
        if (Date.now() > deadline) throw new Error(`background jobs still open after ${timeoutMs} ms`);
        await Promise.race([
          Promise.all(running),
          new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now()))),
        ]);
      }
    },
    async stop() {
      for (const t of timers) clearInterval(t);
      await Promise.all([...queues.values()].map((q) => q.running));
    },
  };
}
