import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/**
 * Shopper contact details at rest: AES-256-GCM (random 96-bit IV, 128-bit
 * tag) as `v1.<base64 iv|tag|ciphertext>`, and keyed hashes of the
 * normalised email and phone so erasure finds rows without decrypting any.
 */
export function createLeadCipher(key: Buffer) {
  if (key.length !== 32) throw new Error('lead encryption key must be 32 bytes');
  // separate keys for the two uses, derived from the one configured
  const encKey = createHmac('sha256', key).update('sillage-lead-encryption').digest();
  const lookupKey = createHmac('sha256', key).update('sillage-lead-lookup').digest();
  return {
    encrypt(plain: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encKey, iv);
      const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `v1.${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64')}`;
    },
    decrypt(sealed: string): string {
      if (!sealed.startsWith('v1.')) throw new Error('unknown lead cipher version');
      const raw = Buffer.from(sealed.slice(3), 'base64');
      const decipher = createDecipheriv('aes-256-gcm', encKey, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
    emailLookup(email: string): string {
      return createHmac('sha256', lookupKey).update(normalizeEmail(email)).digest('hex');
    },
    /** a phone's keyed hash, its digits only: "+966 50 123 4567" and "00966501234567" are one phone */
    phoneLookup(phone: string): string {
      return createHmac('sha256', lookupKey)
        .update(`phone:${normalizePhone(phone)}`)
        .digest('hex');
    },
  };
}

export type LeadCipher = ReturnType<typeof createLeadCipher>;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();
export const normalizePhone = (phone: string) => phone.replace(/\D/g, '').replace(/^00/, '');
