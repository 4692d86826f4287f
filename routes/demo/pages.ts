import type { CatalogPerfume } from '../../catalog/types.ts';
import { type Html, html } from '../../lib/html.ts';
import type { ProductRow } from '../../services/products.ts';
import { labelOf } from '../../vocabulary/index.ts';
import { resolveNote } from '../../vocabulary/notes.ts';

export type Lang = 'ar' | 'en';

const TEXT = {
  ar: {
    store: 'متجر سيلاج التجريبي',
    switchLabel: 'English',
    intro:
      'هذا متجر تجريبي يعمل بمفتاح اختبار: الأسعار والطلبات ليست حقيقية، ولا يُدفع شيء. افتح اختبار العطور من الزر في زاوية الصفحة لتحصل على توصيات من منتجات هذا المتجر بحسب ذوقك.',
    products: 'العطور',
    count: (n: number) => {
      const shown = n.toLocaleString('ar-SA');
      if (n === 1) return 'منتج واحد';
      if (n === 2) return 'منتجان';
      return n >= 3 && n <= 10 ? `${shown} منتجات` : `${shown} منتجًا`;
    },
    house: 'الدار',
    price: 'السعر',
    noPrice: 'السعر عند الطلب',
    back: 'العودة إلى المتجر',
    buy: 'اشترِ الآن (تجريبي)',
    buyNote: 'طلب تجريبي: لن يُدفع شيء ولن يُشحن شيء.',
    knownTitle: 'ما تعرفه سيلاج عن هذا العطر',
    matchedTo: 'طابقناه في كتالوجنا مع',
    matchedUse: 'تعتمد التوصيات على هذا الوصف العطري، لا على اسم المنتج وحده.',
    matchedNoProfile: 'نعرف هذا العطر لكننا لا نعرف نفحاته بعد: تستعمل التوصيات ما يذكره المتجر عنه، أو لا تعرضه.',
    concentration: 'التركيز',
    accords: 'الطابع العطري الرئيسي',
    notes: 'المكوّنات',
    top: 'المقدمة',
    heart: 'القلب',
    base: 'القاعدة',
    partial: 'لم نجد هذا المنتج بعينه في كتالوجنا؛ تستعمل التوصيات ما يذكره المتجر عنه من طابع عطري ومكوّنات، بثقة أقل.',
    unmatched: 'لم نطابق هذا المنتج مع كتالوجنا، فلا يظهر في التوصيات.',
    thanksTitle: 'شكرًا لطلبك',
    orderNumber: 'رقم الطلب',
    total: 'الإجمالي',
    orderNote:
      'هذا طلب تجريبي: لم يُدفع شيء ولن يُشحن شيء. تُبلغ الصفحة سيلاج بالشراء كما يفعل متجر حقيقي، فيُنسب إلى التوصيات إن جاء منها.',
    reported: 'أُبلغت سيلاج بالشراء.',
    continue: 'متابعة التسوق',
    notFoundTitle: 'لم نجد هذا المنتج',
    notFoundBody: 'ربما أُزيل من المتجر التجريبي، أو أن الرابط غير صحيح.',
    footer: 'متجر تجريبي لخدمة توصيات العطور سيلاج، يعمل بمفتاح اختبار.',
  },
  en: {
    store: 'Sillage Demo Store',
    switchLabel: 'العربية',
    intro:
      "This is a demo store running on a test key: prices and orders are not real and nothing is charged. Open the fragrance quiz from the button in the corner to get recommendations from this store's products for your taste.",
    products: 'Fragrances',
    count: (n: number) => (n === 1 ? '1 product' : `${n} products`),
    house: 'House',
    price: 'Price',
    noPrice: 'Price on request',
    back: 'Back to the store',
    buy: 'Buy now (demo)',
    buyNote: 'A demo order: nothing is charged and nothing ships.',
    knownTitle: 'What Sillage knows about this perfume',
    matchedTo: 'Matched in our catalog to',
    matchedUse: 'Recommendations use this scent profile, not just the product name.',
    matchedNoProfile:
      'We know this perfume but not yet its notes: recommendations use what the store says of it, or leave it out.',
    concentration: 'Concentration',
    accords: 'Main accords',
    notes: 'Notes',
    top: 'Top',
    heart: 'Heart',
    base: 'Base',
    partial:
      'We did not find this exact product in our catalog; recommendations use the accords and notes the store gives for it, with less confidence.',
    unmatched: 'This product is not matched to our catalog, so it is not recommended.',
    thanksTitle: 'Thank you for your order',
    orderNumber: 'Order number',
    total: 'Total',
    orderNote:
      'This is a demo order: nothing was charged and nothing will ship. The page reports the purchase to Sillage as a real store would, so it is attributed to the recommendations when it came from them.',
    reported: 'Purchase reported to Sillage.',
    continue: 'Continue shopping',
    notFoundTitle: 'We could not find this product',
    notFoundBody: 'It may have left the demo store, or the link is wrong.',
    footer: 'A demo store of the Sillage fragrance recommendation service, running on a test key.',
  },
} as const;

/** Saudi formatting for Arabic (Arabic-Indic digits, ر.س.), English otherwise; whole prices without decimals. */
export function formatPrice(price: number | null, currency: string | null, lang: Lang): string {
  if (price === null) return TEXT[lang].noPrice;
  const code = currency || 'SAR';
  const digits = Number.isInteger(price) ? 0 : 2;
  try {
    return new Intl.NumberFormat(lang === 'ar' ? 'ar-SA' : 'en', {
      style: 'currency',
      currency: code,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(price);
  } catch {
    // a currency code Intl does not know still shows the amount
    return `${price} ${code}`;
  }
}

const query = (params: Record<string, string>) => new URLSearchParams(params).toString();
export const shopUrl = (lang: Lang) => `/demo?${query({ lang })}`;
export const productUrl = (id: string, lang: Lang) => `/demo/products/${encodeURIComponent(id)}?${query({ lang })}`;
export const thankYouUrl = (id: string, lang: Lang) => `/demo/thank-you?${query({ product: id, lang })}`;

interface Layout {
  lang: Lang;
  title: string;
  /** the same page in the other language */
  switchUrl: string;
  demoKey: string;
  body: Html;
  /** the thank-you page: the widget without its launcher, plus the purchase report */
  thankYou?: boolean;
}

/**
 * Every page loads the widget exactly as a merchant's store would: one script
 * tag with the key and the locale. No inline script or style anywhere (the
 * pages run under a strict Content-Security-Policy, as many shops do).
 */
export function layout(p: Layout): Html {
  const t = TEXT[p.lang];
  const other: Lang = p.lang === 'ar' ? 'en' : 'ar';
  return html`<!doctype html>
<html lang="${p.lang}" dir="${p.lang === 'ar' ? 'rtl' : 'ltr'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${p.title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/demo/assets/demo.css">
</head>
<body>
<header class="site-header">
<a class="brand" href="${shopUrl(p.lang)}">${t.store}</a>
<a class="lang-switch" href="${p.switchUrl}" lang="${other}" hreflang="${other}">${t.switchLabel}</a>
</header>
<main class="page">
${p.body}
</main>
<footer class="site-footer"><p>${t.footer}</p></footer>
${
  p.thankYou
    ? html`<script src="/widget/v1/sillage.js" data-key="${p.demoKey}" data-locale="${p.lang}" data-mount="none" async></script>
<script src="/demo/assets/thank-you.js" defer></script>`
    : html`<script src="/widget/v1/sillage.js" data-key="${p.demoKey}" data-locale="${p.lang}" async></script>`
}
</body>
</html>
`;
}

/** A calm placeholder for the many products without an image: the house's initial on a tinted tile. */
function media(product: { name: string; house: string | null; imageUrl: string | null }, big = false): Html {
  // only https images: the page's CSP allows no others (mixed content would be blocked anyway)
  if (product.imageUrl && /^https:\/\//i.test(product.imageUrl)) {
    return html`<img class="${big ? 'media media-big' : 'media'}" src="${product.imageUrl}" alt="" loading="lazy">`;
  }
  const label = product.house || product.name;
  let hash = 0;
  for (const ch of label) hash = (hash * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  return html`<div class="${big ? 'media media-big' : 'media'} tile tile-${hash % 6}" aria-hidden="true"><span>${Array.from(label)[0] ?? ''}</span></div>`;
}

export interface ShopProduct {
  id: string;
  name: string;
  house: string | null;
  price: number | null;
  currency: string | null;
  imageUrl: string | null;
}

export function shopPage(lang: Lang, demoKey: string, products: readonly ShopProduct[]): Html {
  const t = TEXT[lang];
  const cards = products.map(
    (p) => html`<li><a class="card" href="${productUrl(p.id, lang)}">
${media(p)}
<span class="card-body"><span class="card-house"><bdi>${p.house ?? ''}</bdi></span>
<span class="card-name"><bdi>${p.name}</bdi></span>
<span class="card-price">${formatPrice(p.price, p.currency, lang)}</span></span>
</a></li>
`,
  );
  return layout({
    lang,
    title: t.store,
    switchUrl: shopUrl(lang === 'ar' ? 'en' : 'ar'),
    demoKey,
    body: html`<section class="intro">
<h1>${t.store}</h1>
<p>${t.intro}</p>
</section>
<section class="shop" aria-labelledby="shop-title">
<h2 id="shop-title">${t.products} <small>${t.count(products.length)}</small></h2>
<ul class="grid">
${cards}</ul>
</section>`,
  });
}

function perfumeSection(lang: Lang, row: ProductRow, perfume: CatalogPerfume | undefined): Html {
  const t = TEXT[lang];
  if (row.matchStatus !== 'matched' || !perfume) {
    return html`<section class="profile"><p class="muted">${row.matchStatus === 'partial' ? t.partial : t.unmatched}</p></section>`;
  }
  const name = lang === 'ar' ? (perfume.nameAr ?? perfume.name) : perfume.name;
  const house = lang === 'ar' ? (perfume.houseAr ?? perfume.house) : perfume.house;
  const concentration = perfume.concentration
    ? (labelOf('concentration', perfume.concentration, lang) ?? perfume.concentration)
    : null;
  const accords = [...perfume.accords].sort((a, b) => b.weight - a.weight).slice(0, 6);
  const tiers = (['top', 'heart', 'base'] as const)
    .map((tier) => ({ tier, notes: perfume.notes[tier] ?? [] }))
    .filter((x) => x.notes.length > 0);
  return html`<section class="profile" aria-labelledby="profile-title">
<h2 id="profile-title">${t.knownTitle}</h2>
<p>${t.matchedTo} <strong><bdi>${name}</bdi></strong> — <bdi>${house}</bdi>${concentration ? html` · ${concentration}` : ''}. ${perfume.grade ? t.matchedUse : t.matchedNoProfile}</p>
${
  accords.length
    ? html`<h3>${t.accords}</h3>
<ul class="accords">
${accords.map(
  (
    a,
  ) => html`<li><span>${labelOf('accord', a.name, lang) ?? a.name}</span><meter min="0" max="1" value="${a.weight}">${Math.round(a.weight * 100)}%</meter></li>
`,
)}</ul>`
    : ''
}
${
  tiers.length
    ? html`<h3>${t.notes}</h3>
<dl class="notes">
${tiers.map((x) =>
  lang === 'ar'
    ? html`<div><dt>${t[x.tier]}</dt><dd>${x.notes.map((n, i) => {
        // the notes knowledge base's Arabic name; a note it does not know stays as written, marked English
        const ar = resolveNote(n)?.ar;
        return html`${i > 0 ? '، ' : ''}${ar ? ar : html`<span lang="en" dir="ltr">${n}</span>`}`;
      })}</dd></div>
`
    : html`<div><dt>${t[x.tier]}</dt><dd>${x.notes.join(', ')}</dd></div>
`,
)}</dl>`
    : ''
}
</section>`;
}

export function productPage(lang: Lang, demoKey: string, row: ProductRow, perfume: CatalogPerfume | undefined): Html {
  const t = TEXT[lang];
  return layout({
    lang,
    title: `${row.name} — ${t.store}`,
    switchUrl: productUrl(row.merchantProductId, lang === 'ar' ? 'en' : 'ar'),
    demoKey,
    body: html`<p class="crumbs"><a href="${shopUrl(lang)}">${t.back}</a></p>
<article class="product">
${media({ name: row.name, house: row.house, imageUrl: row.imageUrl ?? perfume?.imageUrl ?? null }, true)}
<div class="product-info">
<p class="card-house"><bdi>${row.house ?? ''}</bdi></p>
<h1><bdi>${row.name}</bdi></h1>
<p class="price">${formatPrice(row.price, row.currency, lang)}</p>
<p><a class="button" href="${thankYouUrl(row.merchantProductId, lang)}">${t.buy}</a></p>
<p class="muted small">${t.buyNote}</p>
</div>
</article>
${perfumeSection(lang, row, perfume)}`,
  });
}

export interface DemoOrder {
  orderId: string;
  total: number;
  currency: string;
  items: { merchant_product_id: string; quantity: number; price: number }[];
}

export function thankYouPage(lang: Lang, demoKey: string, row: ProductRow, order: DemoOrder): Html {
  const t = TEXT[lang];
  return layout({
    lang,
    title: `${t.thanksTitle} — ${t.store}`,
    switchUrl: thankYouUrl(row.merchantProductId, lang === 'ar' ? 'en' : 'ar'),
    demoKey,
    thankYou: true,
    body: html`<section class="thanks">
<h1>${t.thanksTitle}</h1>
<div id="sillage-order" class="order" data-order-id="${order.orderId}" data-total="${order.total}" data-currency="${order.currency}" data-items="${JSON.stringify(order.items)}" data-reported-text="${t.reported}">
<p>${t.orderNumber}: <strong dir="ltr">${order.orderId}</strong></p>
<ul class="order-lines"><li><span>${(1).toLocaleString(lang === 'ar' ? 'ar-SA' : 'en')} × <bdi>${row.name}</bdi></span><span>${formatPrice(order.total, order.currency, lang)}</span></li></ul>
<p class="order-total"><span>${t.total}</span><strong>${formatPrice(order.total, order.currency, lang)}</strong></p>
</div>
<p id="sillage-order-status" class="status" role="status" hidden></p>
<p class="muted">${t.orderNote}</p>
<p><a class="button" href="${shopUrl(lang)}">${t.continue}</a></p>
</section>`,
  });
}

export function notFoundPage(lang: Lang, demoKey: string): Html {
  const t = TEXT[lang];
  return layout({
    lang,
    title: `${t.notFoundTitle} — ${t.store}`,
    switchUrl: shopUrl(lang === 'ar' ? 'en' : 'ar'),
    demoKey,
    body: html`<section class="empty">
<h1>${t.notFoundTitle}</h1>
<p>${t.notFoundBody}</p>
<p><a class="button" href="${shopUrl(lang)}">${t.back}</a></p>
</section>`,
  });
}
