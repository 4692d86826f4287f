export function median(xs: number[]): number {
  return quantile(xs, 0.5);
}
export function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return (s[lo] as number) + ((s[hi] as number) - (s[lo] as number)) * (pos - lo);
}
export const fmt = (n: number, digits = 3) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
