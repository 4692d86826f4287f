/**
 * The lead form in a real browser (Chromium, as tests/browser.test.ts drives
 * it): Arabic-Indic digits accepted, the form's own words for a refused number,
 * and its wording with and without SMTP (the shop contacts the shopper, or the
 * picks are emailed, received here by a real SMTP server).
 */
import { existsSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, buildTestApp, closeTestApp, type TestApp } from './helper.ts';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p): p is string => !!p && existsSync(p),
);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

/** a demo storefront served by its own app, listening on loopback */
async function storefront(env: Record<string, string> = {}) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const app = await buildTestApp({ SEED_DEMO: 'true', PORT: String(port), PUBLIC_BASE_URL: base, ...env });
  await app.listen({ port, host: '127.0.0.1' });
  const info = app.demo.info();
  if (!info) throw new Error('the demo was not seeded');
  return { app, base, merchantId: info.merchant.id };
}

const ARABIC_OUD = { families: ['عود'], love: ['عود'], season: 'الشتاء', occasion: 'السهرات' };
const ENGLISH = { families: ['Oud'], love: ['Oud'], season: 'Winter', occasion: 'Evening out' };

describe.skipIf(!CHROMIUM)('the lead form in Chromium', () => {
  let browser: Browser;
  let plain: Awaited<ReturnType<typeof storefront>>;
  let mailing: Awaited<ReturnType<typeof storefront>>;
  let smtp: SMTPServer;
  const mails: { to: string[]; raw: string }[] = [];

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          mails.push({
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
    const smtpPort = (smtp.server.address() as AddressInfo).port;
    plain = await storefront();
    mailing = await storefront({
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      SMTP_FROM: 'picks@sillage.example',
      WEBHOOK_POLL_MS: '50',
    });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await closeTestApp(plain?.app);
    await closeTestApp(mailing?.app);
    await new Promise<void>((r) => smtp.close(() => r()));
  });

  async function quizDone(base: string, lang: 'ar' | 'en') {
    const context = await browser.newContext({ viewport: { width: 420, height: 860 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/demo${lang === 'en' ? '?lang=en' : ''}`);
    const a = lang === 'en' ? ENGLISH : ARABIC_OUD;
    const launcher = page.locator('sillage-quiz .launcher');
    await expect.poll(() => launcher.isVisible(), { timeout: 10_000 }).toBe(true);
    await launcher.click();
    await page.locator('sillage-quiz .panel .primary').click();
    const pick = async (labels: string[]) => {
      for (const l of labels) await page.locator('sillage-quiz .chip').getByText(l, { exact: true }).click();
    };
    const next = () => page.locator('sillage-quiz .actions .primary').click();
    await next(); // for whom: no preference
    await next(); // no perfume they love
    await pick(a.families);
    await next();
    await pick(a.love);
    await next();
    await next(); // nothing avoided
    await pick([a.season]);
    await next();
    await pick([a.occasion]);
    for (let i = 0; i < 4; i++) await next(); // then no kind, budget or toggle
    await page.locator('sillage-quiz .card').first().waitFor({ timeout: 10_000 });
    return { page, context, errors };
  }

  const form = (page: Page) => ({
    email: page.locator('sillage-quiz form input[name=email]'),
    phone: page.locator('sillage-quiz form input[name=phone]'),
    consent: page.locator('sillage-quiz form input[name=consent]'),
    send: page.locator('sillage-quiz form button[type=submit]'),
    note: page.locator('sillage-quiz form .note'),
  });

  const leadsOf = async (s: { app: TestApp; merchantId: string }) =>
    (
      await s.app.inject({ method: 'GET', url: `/api/admin/merchants/${s.merchantId}/leads`, headers: adminHeaders })
    ).json().leads as { phone: string | null; email: string | null; picks: unknown[] }[];

  it('takes a phone typed in Arabic-Indic digits, stores it in E.164, and says the shop will contact the shopper', async () => {
    const { page, context, errors } = await quizDone(plain.base, 'ar');
    const f = form(page);
    expect(await page.locator('sillage-quiz section:has(form) h3').textContent()).toBe('أريد أن يتواصل معي المتجر');
    expect(await page.locator('sillage-quiz section:has(form)').textContent()).toContain(
      'سيتواصل معك المتجر بخصوص هذه الترشيحات.',
    );
    await f.phone.fill('٠٥٥ ١٢٣ ٤٥٦٧');
    await f.consent.check();
    await f.send.click();
    await page.getByText('شكراً! سيتواصل معك المتجر قريباً.').waitFor({ timeout: 10_000 });
    const stored = (await leadsOf(plain)).find((l) => l.phone === '+966551234567');
    expect(stored).toBeDefined();
    expect(stored?.picks.length).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it("a refused number is told in the shopper's language, never the server's sentence", async () => {
    const { page, context } = await quizDone(plain.base, 'ar');
    const f = form(page);
    await f.consent.check();
    // a shape the form rejects itself
    await f.phone.fill('١٢٣');
    await f.send.click();
    await expect.poll(() => f.note.last().textContent()).toContain('رقم الجوال غير صحيح');
    // a shape that passes the form, refused by the server (invalid_phone): the form's own words
    let answered = '';
    page.on('response', async (r) => {
      if (r.url().endsWith('/api/widget/event') && r.status() === 400) answered = (await r.json()).code;
    });
    await f.phone.fill('١٢٣٤٥٦٧٨');
    await f.send.click();
    await expect.poll(() => answered, { timeout: 10_000 }).toBe('invalid_phone');
    await expect.poll(() => f.note.last().textContent()).toContain('رقم الجوال غير صحيح');
    expect(await f.note.last().textContent()).not.toMatch(/Invalid|phone/);
    await context.close();
  }, 60_000);

  it('with SMTP configured it promises an email, and the email arrives in the quiz language', async () => {
    const { page, context, errors } = await quizDone(mailing.base, 'en');
    const f = form(page);
    expect(await page.locator('sillage-quiz section:has(form) h3').textContent()).toBe('Send me these picks');
    expect(await page.locator('sillage-quiz section:has(form)').textContent()).toContain(
      'We will email these picks to you.',
    );
    await f.email.fill('noor@example.com');
    await f.consent.check();
    await f.send.click();
    await page.getByText('Thank you! Your picks will reach your inbox shortly.').waitFor({ timeout: 10_000 });
    await expect.poll(() => mails.filter((m) => m.to.includes('noor@example.com')).length, { timeout: 10_000 }).toBe(1);
    const raw = mails.find((m) => m.to.includes('noor@example.com'))?.raw ?? '';
    expect(raw).toMatch(/^Subject: Your picks from /m);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
