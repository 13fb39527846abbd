import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { ApiRoutes, HistoryQuery, StreamRoutes } from '../api-types.ts';
import type { summarizeBody } from './routes/compactions.ts';
import type { historyQuery } from './routes/history.ts';
import type { createBody, updateBody } from './routes/sessions.ts';
import type { turnBody } from './routes/turns.ts';
import type { webSettingsPatchSchema } from './web-settings.ts';

// The contract's request types and the schemas the routes validate with say the same thing:
// what the client may send passes the schema's input, and what the schema lets through is
// what the contract promised. (`Readonly`: the contract's types are read-only, the schemas'
// inferred ones are not; expect-type tells the two apart.)
/** Optional fields that may hold `undefined`, as zod types a parsed optional field. */
type Loose<T> = { readonly [K in keyof T]?: T[K] | undefined };

describe('the API contract and the route schemas', () => {
  it('agree on every JSON body', () => {
    expectTypeOf<ApiRoutes['POST /api/sessions']['body']>().toExtend<Readonly<z.input<typeof createBody>>>();
    expectTypeOf<z.output<typeof createBody>>().toExtend<Loose<ApiRoutes['POST /api/sessions']['body']>>();
    expectTypeOf<ApiRoutes['PATCH /api/sessions/:id']['body']>().toExtend<
      Readonly<z.input<typeof updateBody>>
    >();
    expectTypeOf<z.output<typeof updateBody>>().toExtend<
      Loose<ApiRoutes['PATCH /api/sessions/:id']['body']>
    >();
    expectTypeOf<ApiRoutes['PUT /api/settings']['body']>().toExtend<
      Readonly<z.input<typeof webSettingsPatchSchema>>
    >();
    expectTypeOf<z.output<typeof webSettingsPatchSchema>>().toExtend<
      Loose<ApiRoutes['PUT /api/settings']['body']>
    >();
    expectTypeOf<ApiRoutes['POST /api/sessions/:id/compactions/preview']['body']>().toExtend<
      Readonly<z.input<typeof summarizeBody>>
    >();
    expectTypeOf<StreamRoutes['POST /api/sessions/:id/compactions']>().toExtend<
      Readonly<z.input<typeof summarizeBody>>
    >();
    expectTypeOf<StreamRoutes['POST /api/sessions/:id/turns']>().toExtend<
      Readonly<z.input<typeof turnBody>>
    >();
    expectTypeOf<z.output<typeof turnBody>>().toExtend<StreamRoutes['POST /api/sessions/:id/turns']>();
  });

  it('agree on the history query', () => {
    expectTypeOf<HistoryQuery>().toExtend<Readonly<z.input<typeof historyQuery>>>();
  });
});
