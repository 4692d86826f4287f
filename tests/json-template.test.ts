import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonTemplates } from '../http/json-template.ts';
import { findUnstorableText, isStorableText } from '../http/storable-text.ts';

/** renders like the score answer: the token in a JSON string and inside a URL, text in any script */
const renderer = (data: unknown, label: string) => (token: string) =>
  JSON.stringify({
    session_id: token,
    data,
    powered_by: { label, url: `https://x.example/p?session=${encodeURIComponent(token)}` },
  });

describe('JsonTemplates: spliced bytes equal the real rendering', () => {
  it('for any data and any UUID, whether the template is new or reused', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.string(),
        fc.array(fc.uuid(), { minLength: 1, maxLength: 4 }),
        (data, label, ids) => {
          const templates = new JsonTemplates<object>();
          const owner = {};
          const render = renderer(data, label);
          for (const id of ids) {
            const bytes = templates.bytes(owner, 'v', id, render);
            expect(bytes?.toString('utf8')).toBe(render(id));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps variants apart and renders each once', () => {
    const templates = new JsonTemplates<object>();
    const owner = {};
    let renders = 0;
    const render = (variant: string) => (t: string) => {
      renders++;
      return JSON.stringify({ t, variant, label: 'بدعم من Sillage' });
    };
    for (let i = 0; i < 50; i++) {
      const id = randomUUID();
      expect(JSON.parse(templates.bytes(owner, 'ar', id, render('ar'))?.toString() ?? '')).toEqual({
        t: id,
        variant: 'ar',
        label: 'بدعم من Sillage',
      });
      expect(JSON.parse(templates.bytes(owner, 'en', id, render('en'))?.toString() ?? '').variant).toBe('en');
    }
    // each variant: once with the marker and once with the first real token to check the template
    expect(renders).toBe(4);
  });

  it('refuses a token it cannot splice, and never serves a template that would change it', () => {
    const templates = new JsonTemplates<object>();
    expect(templates.bytes({}, 'v', 'urn:uuid:x', (t) => JSON.stringify({ t }))).toBeNull();
    // a renderer that transforms the token: the real rendering is answered, not the template
    const upper = (t: string) => JSON.stringify({ t: t.toUpperCase() });
    const owner = {};
    const id = 'abc-123';
    expect(templates.bytes(owner, 'v', id, upper)?.toString()).toBe('{"t":"ABC-123"}');
    expect(templates.bytes(owner, 'v', 'def-456', upper)?.toString()).toBe('{"t":"DEF-456"}');
  });
});

describe('findUnstorableText', () => {
  const unstorable = fc.constantFrom('\u0000', '\ud800', '\udfff', 'a\ud83dx');
  it('finds a NUL or lone surrogate anywhere, keys included, and nothing in storable data', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const clean = JSON.stringify(value) === JSON.stringify(value).replace(/\\u0000|\\ud[89a-f][0-9a-f]{2}/gi, '');
        if (clean) expect(findUnstorableText(value)).toBeNull();
      }),
    );
    fc.assert(
      fc.property(fc.jsonValue(), unstorable, fc.boolean(), (value, bad, asKey) => {
        const doc = asKey ? { ok: value, [`k${bad}`]: 1 } : { ok: value, list: [1, { deep: `x${bad}y` }] };
        const at = findUnstorableText(doc);
        expect(at).not.toBeNull();
        expect(at?.startsWith(asKey ? '/k' : '/list/1/deep')).toBe(true);
        expect(isStorableText(`x${bad}y`)).toBe(false);
      }),
    );
  });
});
