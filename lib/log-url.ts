/**
 * A URL as the log may hold it: the values of contact parameters (an erasure's ?email=, ?phone=)
 * and of secrets (a Zid webhook's ?token=, an OAuth ?code=) replaced.
 */
export function loggableUrl(url: string): string {
  return url.replace(/([?&](?:email|phone|token|code|state)=)[^&#]*/gi, '$1[redacted]');
}
