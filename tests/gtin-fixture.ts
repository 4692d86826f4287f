/** `body` with its GTIN check digit appended (a valid barcode for the tests). */
export function withCheck(body: string): string {
  let sum = 0;
  for (let i = body.length - 1, w = 3; i >= 0; i--, w = 4 - w) sum += Number(body[i]) * w;
  return body + String((10 - (sum % 10)) % 10);
}
