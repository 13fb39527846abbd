import { ChatfoldError } from '../errors/chatfold-error.ts';
import { resolveModel } from '../models/resolve-model.ts';
import type { ModelPricing } from '../models/types.ts';
import { counterFor } from '../tokens/count-tokens.ts';
import type { TokenCounter } from '../tokens/types.ts';

/** What compaction needs to know about the model. */
export interface CompactionModel {
  readonly counter: TokenCounter;
  readonly window: number;
  readonly maxOutputTokens?: number;
  readonly pricing: ModelPricing;
  readonly warnings: readonly string[];
}

/** Resolves window, output size and counter from explicit options first, then the model id. */
export function resolveCompactionModel(options: {
  readonly model?: string;
  readonly window?: number;
  readonly maxOutputTokens?: number;
  readonly counter?: TokenCounter;
}): CompactionModel {
  if (options.model === undefined) {
    if (options.window === undefined) {
      throw new ChatfoldError(
        'E_INVALID_OPTIONS',
        'compact: pass a model id (e.g. "gpt-4o") or a window in tokens',
        {},
      );
    }
    return {
      counter: options.counter ?? counterFor('chars/4'),
      window: options.window,
      ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
      pricing: {},
      warnings: [],
    };
  }
  const model = resolveModel(options.model, {
    overrides: {
      ...(options.window === undefined ? {} : { contextWindow: options.window }),
      ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    },
  });
  return {
    counter: options.counter ?? counterFor(model.tokenizer),
    window: model.contextWindow,
    maxOutputTokens: model.maxOutputTokens,
    pricing: model.pricing,
    warnings: model.warnings,
  };
}
