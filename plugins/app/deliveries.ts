import fp from 'fastify-plugin';
import { createTransport, type Transporter } from 'nodemailer';
import { type PicksEmailBody, picksEmail } from '../../services/picks-email.ts';
import {
  backoffMs,
  claimDue,
  type DueDelivery,
  type PostResult,
  postWebhook,
  purgeOldDeliveries,
  recordAttempt,
} from '../../services/webhooks.ts';

declare module 'fastify' {
  interface FastifyInstance {
    deliveries: {
      /** look for deliveries due now (after a lead was stored), without waiting for the next poll */
      kick(): void;
      /** resolves when the sweep in progress, if any, and one more have run */
      drain(): Promise<void>;
    };
  }
}

/** deliveries one sweep sends at most, and at once: the work an instance gives them is bounded */
export const SWEEP_BATCH = 10;
/** a claimed delivery whose instance died is taken up again after this */
const LEASE_MS = 120_000;
/** finished deliveries stay in the log this long */
const DELIVERY_LOG_DAYS = 30;
const PURGE_EVERY_MS = 6 * 3600 * 1000;

/**
 * Sends what leads queue (lead_deliveries): merchants' `lead.created` webhook
 * posts and, with SMTP configured, shoppers' picks emails. A sweep claims up
 * to SWEEP_BATCH due deliveries, sends them in parallel and records each
 * outcome; a failure is retried after an exponential backoff until
 * WEBHOOK_MAX_ATTEMPTS, then marked failed. Every failure is logged. Sweeps
 * run one at a time, every WEBHOOK_POLL_MS and at once after a new lead: off
 * the request path.
 */
export default fp(
  async (app) => {
    const cfg = app.config.webhooks;
    const smtp = app.config.smtp;
    const mailer: Transporter | null = smtp
      ? createTransport(
          {
            url: smtp.url,
            connectionTimeout: cfg.timeoutMs,
            greetingTimeout: cfg.timeoutMs,
            socketTimeout: cfg.timeoutMs,
          },
          { from: smtp.from },
        )
      : null;
    let running: Promise<void> | null = null;
    let again = false;
    let closed = false;

    async function send(d: DueDelivery): Promise<PostResult> {
      if (d.event === 'picks.email') {
        if (!mailer) return { ok: false, status: null, error: 'SMTP_URL is not set on this instance' };
        const body = JSON.parse(app.leadCipher.decrypt(d.body_encrypted)) as PicksEmailBody;
        const mail = picksEmail(d.merchant_name, body);
        try {
          await mailer.sendMail({ to: body.to, ...mail });
          return { ok: true, status: null, error: null };
        } catch (err) {
          return { ok: false, status: null, error: (err as Error).message.slice(0, 200) };
        }
      }
      if (!d.webhook_url || !d.webhook_secret_encrypted) {
        return { ok: false, status: null, error: 'the merchant has no webhook URL any more' };
      }
      return postWebhook(
        d.webhook_url,
        app.leadCipher.decrypt(d.body_encrypted),
        app.leadCipher.decrypt(d.webhook_secret_encrypted),
        { 'sillage-event': d.event, 'sillage-delivery': d.id },
        { timeoutMs: cfg.timeoutMs, allowPrivate: cfg.allowPrivate },
      );
    }

    async function sweep(): Promise<void> {
      for (;;) {
        const due = await claimDue(app.db, SWEEP_BATCH, LEASE_MS);
        await Promise.all(
          due.map(async (d) => {
            let result: PostResult;
            try {
              result = await send(d);
            } catch (err) {
              result = { ok: false, status: null, error: (err as Error).message.slice(0, 200) };
            }
            const retry = result.ok || d.attempts >= cfg.maxAttempts ? null : backoffMs(d.attempts, cfg.retryBaseMs);
            await recordAttempt(app.db, d.id, result, retry);
            if (!result.ok) {
              app.log.warn(
                {
                  delivery: d.id,
                  event: d.event,
                  merchant: d.merchant_id,
                  attempts: d.attempts,
                  status: result.status,
                  error: result.error,
                },
                retry === null ? 'lead delivery failed for good' : 'lead delivery failed; will retry',
              );
            }
          }),
        );
        if (due.length < SWEEP_BATCH || closed) return;
      }
    }

    function run(): Promise<void> {
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        do {
          again = false;
          try {
            await sweep();
          } catch (err) {
            app.log.warn({ err }, 'lead delivery sweep failed; next try at the next poll');
          }
        } while (again && !closed);
      })().finally(() => {
        running = null;
      });
      return running;
    }

    const timer = setInterval(() => void run(), cfg.pollMs);
    timer.unref();
    const purge = setInterval(() => {
      purgeOldDeliveries(app.db, DELIVERY_LOG_DAYS).catch((err) =>
        app.log.warn({ err }, 'lead delivery log purge failed; next try later'),
      );
    }, PURGE_EVERY_MS);
    purge.unref();
    app.addHook('onClose', async () => {
      closed = true;
      clearInterval(timer);
      clearInterval(purge);
      await running;
      mailer?.close();
    });
    app.decorate('deliveries', {
      kick() {
        if (!closed) void run();
      },
      async drain() {
        await run();
        await run();
      },
    });
  },
  { name: 'deliveries', dependencies: ['database', 'leads'] },
);
