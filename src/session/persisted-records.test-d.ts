import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { SummarySnapshotContent } from '../stores/types.ts';
import type { SessionCompactionState, sessionStateSchema } from './compaction-state.ts';
import type { PendingPlan, pendingPlanSchema } from './pending-plan.ts';
import type { SessionSnapshotContent } from './snapshot-content.ts';

describe('the persisted records are their schemas', () => {
  it('snapshot content is the ST-2 content plus chatfold fields', () => {
    expectTypeOf<SessionSnapshotContent>().toExtend<SummarySnapshotContent>();
    expectTypeOf<SessionSnapshotContent['version']>().toEqualTypeOf<1>();
  });

  it('the session state the session keeps is what its schema reads', () => {
    expectTypeOf<Omit<z.output<typeof sessionStateSchema>, 'version'>>().toExtend<SessionCompactionState>();
    expectTypeOf<SessionCompactionState & { version: 1 }>().toExtend<z.input<typeof sessionStateSchema>>();
  });

  it('a pending plan is its schema with a CompactionPlan inside', () => {
    expectTypeOf<PendingPlan['baseSnapshotId']>().toEqualTypeOf<
      z.output<typeof pendingPlanSchema>['baseSnapshotId']
    >();
  });
});
