import proxyAddr from '@fastify/proxy-addr';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { rememberedTrust } from '../http/trust-proxy.ts';

const address = fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('10.0.0.1', '127.0.0.1', '::1', 'not-an-ip', ''));
const proxies = fc
  .array(
    fc.oneof(
      fc.ipV4(),
      fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 32 })).map(([ip, bits]) => `${ip}/${bits}`),
      fc.constantFrom('127.0.0.1', '10.0.0.0/8', '::1', 'fc00::/7'),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .filter((list) => {
    try {
      proxyAddr.compile(list);
      return true;
    } catch {
      return false; // a list proxy-addr refuses (configuration refuses it too)
    }
  });

describe('remembered trust-proxy check', () => {
  it('answers as proxy-addr does for any address, asked once or again', () => {
    fc.assert(
      fc.property(proxies, fc.array(address, { minLength: 1, maxLength: 20 }), (list, addrs) => {
        const plain = proxyAddr.compile(list);
        const remembered = rememberedTrust(list);
        for (const a of [...addrs, ...addrs]) expect(remembered(a, 0)).toBe(plain(a, 0));
      }),
    );
  });

  it('keeps answering correctly past the number of addresses it remembers', () => {
    const remembered = rememberedTrust(['10.0.0.0/8']);
    for (let i = 0; i < 25_000; i++) {
      const a = `${i % 2 ? 10 : 11}.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      expect(remembered(a, 0)).toBe(i % 2 === 1);
    }
  });

  it("decides the proxy's own address once while a stream of one-off client addresses passes", () => {
    const asked: string[] = [];
    const compile = proxyAddr.compile;
    const spy = vi.spyOn(proxyAddr, 'compile').mockImplementation((list) => {
      const trust = compile(list);
      return (a: string, hop: number) => {
        asked.push(a);
        return trust(a, hop);
      };
    });
    try {
      const remembered = rememberedTrust(['10.0.0.0/8']);
      for (let i = 0; i < 25_000; i++) {
        expect(remembered('10.0.0.1', 0)).toBe(true); // the proxy, on every request
        remembered(`11.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, 1);
      }
      expect(asked.filter((a) => a === '10.0.0.1').length).toBe(1);
    } finally {
      spy.mockRestore();
    }
  });
});
