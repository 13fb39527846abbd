import type { CompactionPlan } from '../compaction/types.ts';
import type { SummaryPreview } from './types.ts';

/** Reads a dry-run plan as the numbers a confirmation shows (WEB-5, `/summarize`). */
export function summaryPreviewOf(
  plan: CompactionPlan,
  messagesInHistory: number,
  floorTokens: number,
): SummaryPreview {
  const summarizeStage = plan.stages.find((stage) => stage.stage === 'summarize');
  const messagesToSummarize = summarizeStage?.summarized ?? plan.dropped.length;
  return {
    willCompact: plan.compacted,
    reason: plan.reason,
    messagesInHistory,
    messagesToSummarize,
    tokensBefore: plan.tokensBefore,
    tokensAfter: plan.tokensAfter,
    floorTokens,
    plan,
  };
}
