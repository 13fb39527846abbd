import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { CompactionPlan, CompactionSummary } from '../compaction/types.ts';
import type { FactLedger } from '../summarize/types.ts';
import type { compactionPlanSchema, compactionSummarySchema, factLedgerSchema } from './plan-schema.ts';

describe('the plan schema describes the plan type', () => {
  it('what it parses is a CompactionPlan (a field the type gains must be added to the schema)', () => {
    expectTypeOf<z.output<typeof compactionPlanSchema>>().toExtend<CompactionPlan>();
    expectTypeOf<z.output<typeof compactionSummarySchema>>().toExtend<CompactionSummary>();
    expectTypeOf<z.output<typeof factLedgerSchema>>().toExtend<FactLedger>();
  });
});
