import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gtinKey, MAX_BARCODE_TEXT, readBarcode, validGtin } from '../lib/gtin.ts';
import { withCheck } from './gtin-fixture.ts';

const code = (r: ReturnType<typeof readBarcode>) => ('code' in r ? r.code : null);
const reason = (r: ReturnType<typeof readBarcode>) => ('reason' in r ? r.reason : null);

describe("readBarcode: a shop's barcode read by its check digit", () => {
  it('reads an EAN-13, a UPC-A, a GTIN-8 and a GTIN-14 whose check digit holds', () => {
    expect(code(readBarcode('3348901250146'))).toBe('3348901250146'); // a Dior EAN-13
    expect(code(readBarcode('012345678905'))).toBe('012345678905'); // UPC-A
    expect(code(readBarcode('96385074'))).toBe('96385074'); // GTIN-8
    expect(code(readBarcode('10012345678902'))).toBe('10012345678902'); // GTIN-14
  });

  it('drops spaces and hyphens a shop writes between the digits', () => {
    expect(code(readBarcode(' 3348 9012-50146 '))).toBe('3348901250146');
  });

  it('reads a whole number as its digits, putting back the zeros a number loses', () => {
    // the UPC-A 012345678905 sent as a number arrives as 12345678905
    expect(code(readBarcode(12345678905))).toBe('012345678905');
    expect(code(readBarcode(3348901250146))).toBe('3348901250146');
    expect(gtinKey(code(readBarcode(12345678905)) as string)).toBe(gtinKey('0012345678905'));
  });

  it('ignores, with a reason, what is not a barcode', () => {
    expect(reason(readBarcode('3348901250147'))).toBe('fails its check digit');
    expect(reason(readBarcode('12345'))).toBe('is not 8, 12, 13 or 14 digits long');
    expect(reason(readBarcode('334890125014'))).toMatch(/check digit/);
    expect(reason(readBarcode('EAN 3348901250146'))).toBe('has characters other than digits');
    expect(reason(readBarcode('0000000000000'))).toBe('is all zeros');
    expect(reason(readBarcode('0'.repeat(MAX_BARCODE_TEXT + 1)))).toMatch(/longer than 40/);
    expect(reason(readBarcode({ gtin: '3348901250146' }))).toBe('must be text or a whole number');
    expect(reason(readBarcode(1.5))).toMatch(/whole number/);
    expect(reason(readBarcode(-3348901250146))).toMatch(/whole number/);
  });

  it("refuses a shop's own in-store codes: they name nothing outside that shop", () => {
    for (const body of ['200000000001', '290000000001', '020000000001', '040000000001']) {
      expect(reason(readBarcode(withCheck(body))), body).toMatch(/in-store/);
    }
    expect(reason(readBarcode(withCheck('0234567')))).toMatch(/in-store/); // GTIN-8 prefix 0
    expect(reason(readBarcode(withCheck('2234567')))).toMatch(/in-store/); // GTIN-8 prefix 2
    // a UPC-A of number system 2 is an in-store code too
    expect(reason(readBarcode(withCheck('21234567890')))).toMatch(/in-store/);
    // other prefixes are global trade item numbers
    expect(code(readBarcode(withCheck('629100000001')))).not.toBeNull(); // a Gulf (GS1 UAE) EAN-13
    expect(code(readBarcode(withCheck('01234567890')))).not.toBeNull();
    expect(code(readBarcode(withCheck('9234567')))).not.toBeNull();
  });

  it('holds for all inputs: a code read is valid, and changing one digit of it is never read', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[3-9]\d{11}$/), fc.nat(12), fc.integer({ min: 1, max: 9 }), (body, at, by) => {
        const good = withCheck(body);
        expect(code(readBarcode(good))).toBe(good);
        expect(validGtin(good)).toBe(true);
        const digit = (Number(good[at]) + by) % 10;
        const bad = good.slice(0, at) + String(digit) + good.slice(at + 1);
        expect(code(readBarcode(bad))).toBeNull();
      }),
    );
  });

  it('keys one bottle the same in every length', () => {
    expect(gtinKey('012345678905')).toBe('00012345678905');
    expect(gtinKey('0012345678905')).toBe('00012345678905');
    expect(gtinKey('00012345678905')).toBe('00012345678905');
  });
});
