/** The attribution block of every score answer. */
import { Cache } from '../lib/cache.ts';

/** A small scent-trail mark: static, script-free SVG that inherits the text colour. */
export const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="16" height="16" role="img" aria-label="Sillage">' +
  '<path fill="currentColor" d="M12 2c2.8 3.6 5 6.7 5 9.6A5 5 0 0 1 12 17a5 5 0 0 1-5-5.4C7 8.7 9.2 5.6 12 2Z"/>' +
  '<path fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" d="M5 20.5c2.3-1.2 4.6-1.2 7 0s4.7 1.2 7 0"/>' +
  '</svg>';

const LABELS = { ar: 'بدعم من Sillage', en: 'Powered by Sillage' } as const;

/** base + merchant → the URL up to the session parameter: parsed once, not per answer */
const prefixes = new Cache<string, string>({
  name: 'powered-by-prefix',
  max: 10_000,
  invalidatedBy: 'never: a pure function of the base URL and the merchant slug',
});

export function poweredBy(base: string, locale: 'ar' | 'en', merchantSlug: string, sessionId: string) {
  const memo = `${base}\u0000${merchantSlug}`;
  let prefix = prefixes.get(memo);
  if (!prefix) {
    const url = new URL(base);
    url.searchParams.set('ref', 'widget');
    url.searchParams.set('merchant', merchantSlug);
    url.searchParams.set('session', '');
    prefix = url.toString();
    prefixes.set(memo, prefix);
  }
  return { label: LABELS[locale], url: prefix + encodeURIComponent(sessionId), logo_svg: LOGO_SVG };
}
