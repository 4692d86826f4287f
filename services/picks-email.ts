import type { LeadPick } from './leads.ts';

/** What a "send me these picks" delivery holds (encrypted in lead_deliveries). */
export interface PicksEmailBody {
  to: string;
  locale: string | null;
  picks: LeadPick[];
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const WORDING = {
  ar: {
    subject: (shop: string) => `ترشيحاتك من ${shop}`,
    hello: 'مرحباً،',
    intro: (shop: string) => `هذه العطور التي رُشّحت لك في ${shop}:`,
    none: 'لم يُعرض عليك عطر في هذا الاختبار؛ سيتواصل معك المتجر.',
    why: (shop: string) => `وصلتك هذه الرسالة لأنك طلبتها من اختبار العطور في ${shop}.`,
  },
  en: {
    subject: (shop: string) => `Your picks from ${shop}`,
    hello: 'Hello,',
    intro: (shop: string) => `Here are the perfumes picked for you at ${shop}:`,
    none: 'No perfume was shown in this quiz; the shop will contact you.',
    why: (shop: string) => `You receive this email because you asked for it in the fragrance quiz of ${shop}.`,
  },
} as const;

/**
 * The shopper's picks email, in the language of the quiz they took (Arabic,
 * right to left, unless it was English): a subject, a plain-text body and the
 * same as HTML.
 */
export function picksEmail(shop: string, body: PicksEmailBody): { subject: string; text: string; html: string } {
  const lang = body.locale === 'en' ? 'en' : 'ar';
  const w = WORDING[lang];
  const items = body.picks.map((p) => ({ name: p.name ?? p.merchant_product_id, url: p.url }));
  const text = [
    w.hello,
    '',
    items.length ? w.intro(shop) : w.none,
    '',
    ...items.map((i) => `• ${i.name}${i.url ? ` — ${i.url}` : ''}`),
    '',
    w.why(shop),
    '',
  ].join('\n');
  const safeUrl = (u: string | null) => (u && /^https?:\/\//i.test(u) ? u : null);
  const html = `<!doctype html><html lang="${lang}" dir="${lang === 'ar' ? 'rtl' : 'ltr'}"><body>
<p>${escapeHtml(w.hello)}</p>
<p>${escapeHtml(items.length ? w.intro(shop) : w.none)}</p>
${items.length ? `<ul>${items.map((i) => `<li>${safeUrl(i.url) ? `<a href="${escapeHtml(safeUrl(i.url) as string)}">${escapeHtml(i.name)}</a>` : escapeHtml(i.name)}</li>`).join('')}</ul>` : ''}
<p>${escapeHtml(w.why(shop))}</p>
</body></html>`;
  return { subject: w.subject(shop), text, html };
}
