/**
 * A URL as the log may hold it: the values of contact parameters (an erasure's ?email=, ?phone=)
 * and of secrets (a Zid webhook's or Salla dashboard's ?token=, an OAuth ?code=, a sign-in ?ticket=,
 * the WooCommerce connect token WooCommerce sends back as ?user_id=) replaced.
 */
export function loggableUrl(url: string): string {
  return url.replace(/([?&](?:email|phone|token|code|state|ticket|user_id)=)[^&#]*/gi, '$1[redacted]');
}
