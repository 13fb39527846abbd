import { DEFAULTS } from '../defaults.ts';
import { chatfoldMetadata, formatCount } from '../projection/chatfold-metadata.ts';
import { clipMessage } from '../projection/clip-text.ts';
import type { PlanReplacement } from '../projection/types.ts';
import { stageEffect } from './stage-effect.ts';
import type { Strategy, StrategyResult } from './types.ts';

/** Options of {@link clip}. */
export interface ClipOptions {
  /** Largest share of the budget one message may use. Default `DEFAULTS.clipShare`. */
  readonly maxShare?: number;
}

/**
 * `clip` (STR-6): any unprotected message larger than `maxShare` of the budget is clipped
 * head+tail with a marker; the original stays in the store.
 */
export function clip({ maxShare = DEFAULTS.clipShare }: ClipOptions = {}): Strategy {
  return {
    name: 'clip',
    apply(messages, context): StrategyResult {
      const limit = Math.max(1, Math.floor(context.budget * maxShare));
      const replace: PlanReplacement[] = [];
      for (const message of messages) {
        if (context.protectedIds.has(message.id)) continue;
        // An earlier summary is merged and shrunk by `summarize` (SUM-2, SUM-6); clipping it
        // here would cut its ledger.
        if (chatfoldMetadata(message)?.transform === 'summary') continue;
        const next = clipMessage(
          message,
          limit,
          context.counter,
          context.cache,
          context.estimateOf?.(message),
        );
        if (next !== message) replace.push({ id: message.id, message: next });
      }
      const clipped = replace.length;
      return {
        edits: { replace },
        effect: stageEffect({
          clipped,
          notes: clipped ? [`clipped ${clipped} message(s) above ${formatCount(limit)} tokens`] : [],
        }),
      };
    },
  };
}
