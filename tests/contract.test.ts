import { describe, expect, it } from 'vitest';
import { contractCheck } from './contract.ts';

/** The checker every route test relies on (tests/helper.ts) finds each kind of answer the document does not describe. */
const doc = {
  paths: {
    '/things/{id}': {
      get: {
        responses: {
          '200': {
            headers: { 'x-request-id': { required: true, schema: { type: 'string' } } },
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id'],
                  properties: { id: { type: 'string' }, thing: { $ref: '#/components/schemas/Thing' } },
                },
              },
            },
          },
          '404': {
            content: {
              'application/json': {
                schema: { type: 'object', properties: { code: { type: 'string', enum: ['thing_not_found'] } } },
              },
            },
          },
        },
      },
    },
  },
  components: { schemas: { Thing: { type: 'object', properties: { n: { type: 'integer' } } } } },
};

const answer = (over: Partial<Parameters<ReturnType<typeof contractCheck>['check']>[0]>) => ({
  method: 'GET',
  url: '/things/a%20b?x=1',
  statusCode: 200,
  headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r1' },
  body: JSON.stringify({ id: 'a', thing: { n: 1 } }),
  ...over,
});

describe('the contract check', () => {
  it('passes an answer the document describes, and records its operation and status', () => {
    const check = contractCheck(doc as never);
    expect(check.check(answer({}))).toBeNull();
    expect([...check.seen]).toEqual(['GET /things/{id} 200']);
  });

  it('finds a status, a media type, a body and a header the document does not describe', () => {
    const check = contractCheck(doc as never);
    expect(check.check(answer({ statusCode: 500, body: '{}' }))).toMatch(/500: a status the document does not declare/);
    expect(check.check(answer({ headers: { 'content-type': 'text/html', 'x-request-id': 'r' } }))).toMatch(
      /media type "text\/html"/,
    );
    expect(check.check(answer({ body: JSON.stringify({ thing: { n: 1 } }) }))).toMatch(
      /must have required property 'id'/,
    );
    expect(check.check(answer({ body: JSON.stringify({ id: 'a', thing: { n: 'one' } }) }))).toMatch(
      /\/thing\/n must be integer/,
    );
    expect(check.check(answer({ headers: { 'content-type': 'application/json' } }))).toMatch(
      /the declared header x-request-id is missing/,
    );
    expect(check.check(answer({ statusCode: 404, body: JSON.stringify({ code: 'other' }) }))).toMatch(
      /must be equal to one of the allowed values/,
    );
  });

  it('leaves alone what the document does not publish: other paths, other methods', () => {
    const check = contractCheck(doc as never);
    expect(check.check(answer({ url: '/docs/json', statusCode: 418 }))).toBeNull();
    expect(check.check(answer({ method: 'OPTIONS', statusCode: 204, body: '' }))).toBeNull();
    expect(check.seen.size).toBe(0);
  });
});
