import type { TokenizerId } from './create-token-counter.ts';

/**
 * The tokenizer of a model id when the registry has no entry: OpenAI's o200k family for
 * GPT-4o/4.1/5 and o-series, cl100k for GPT-4/3.5, Claude's and Gemini's calibrated
 * encodings, else the approximate chars/4 (TOK-7).
 */
export function tokenizerForModel(modelId: string): TokenizerId {
  const id = modelId.toLowerCase().replace(/^[\w-]+\//, '');
  if (/^(gpt-4o|gpt-4\.1|gpt-5|o[1-9]|chatgpt-4o|gpt-oss|codex)/.test(id)) return 'openai:o200k_base';
  if (/^(gpt-4|gpt-3\.5|text-embedding)/.test(id)) return 'openai:cl100k_base';
  if (id.startsWith('claude')) return 'anthropic:claude';
  if (id.startsWith('gemini') || id.startsWith('gemma')) return 'google:gemini';
  return 'chars/4';
}
