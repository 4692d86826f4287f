import fp from 'fastify-plugin';
import { SCORE_MAX_BYTES } from '../../contracts/widget.ts';
import { createByteBudget, largeBodyRefusal } from '../../http/large-bodies.ts';

/**
 * Bodies over 64 KB whose sender has not proved itself draw on a budget of bytes a second per
 * instance (`LARGE_BODY_BYTES_PER_SECOND`), and those with a widget key this instance found real
 * named in their headers on one of their own, the same size; past it, `503 overloaded` with
 * Retry-After before the body is read (http/large-bodies.ts). A bucket holds two seconds' worth, and
 * at least the largest such body. 0 turns both off.
 */
export default fp(
  async (app) => {
    const rate = app.config.largeBodyBytesPerSecond;
    if (rate === 0) return;
    const budget = () => createByteBudget({ bytesPerSecond: rate, burst: Math.max(2 * rate, SCORE_MAX_BYTES) });
    const budgets = { stranger: budget(), key: budget() };
    // preParsing: after every onRequest hook (where a sender proves itself), before the body is read
    app.addHook('preParsing', (request, _reply, payload, done) => {
      const refused = largeBodyRefusal(request, budgets);
      if (refused) done(refused);
      else done(null, payload);
    });
  },
  { name: 'large-bodies' },
);
