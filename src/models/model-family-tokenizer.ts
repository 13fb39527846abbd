/**
 * The tokenizer chatfold uses for a model family (MOD-1; TOK-2, TOK-3, TOK-7). Ids are the
 * ones chatfold's counters understand:
 * - `openai:o200k_base` for GPT-4o / 4.1 / 4.5 / 5 / 6, the o-series and gpt-oss;
 *   `openai:cl100k_base` for GPT-4 and GPT-3.5 (exact, TOK-2);
 * - `anthropic:claude` for Claude, `google:gemini` for Gemini and Gemma (Gemma 3 uses
 *   Gemini's vocabulary) — calibrated local estimates (TOK-4 counts exactly through the API);
 * - `open:llama3` for Llama 3.x and `open:qwen3` for Qwen 2.5 / 3 (the models' own
 *   tokenizers, loaded by `createOpenModelTokenCounter` from `chatfold/open-models`, TOK-3);
 * - `estimate:o200k_base` for DeepSeek and `estimate:cl100k_base` for Mistral: the encodings
 *   ai-tokenizer measured closest to those providers' counts (calibrated);
 * - else `chars/4`, approximate (TOK-7).
 *
 * @param id - Model id, with or without a provider prefix (`openai/gpt-4o`, `llama3.1:8b`).
 * @param provider - Provider, when known.
 * @returns A tokenizer id.
 * @example
 * modelFamilyTokenizer('gpt-4o-2024-08-06'); // 'openai:o200k_base'
 */
export function modelFamilyTokenizer(id: string, provider?: string): string {
  const model = id.trim().toLowerCase().replace(/^.*\//, '');
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-6|chatgpt-|o[1-9](-|$)|gpt-oss|codex)/.test(model))
    return 'openai:o200k_base';
  if (/^(gpt-4|gpt-3\.5|text-embedding-(3|ada))/.test(model)) return 'openai:cl100k_base';
  if (model.startsWith('claude') || provider === 'anthropic') return 'anthropic:claude';
  if (/^(gemini|gemma|learnlm)/.test(model)) return 'google:gemini';
  // Llama 3.x share one 128k-vocabulary tokenizer; Llama 4 has a different one (not bundled).
  if (/^(meta-)?llama-?3/.test(model)) return 'open:llama3';
  // Qwen 2.5 and 3 (open weights and the hosted qwen-plus / qwen3-max) share one BPE vocabulary.
  if (/^(qwen-?(2\.5|3)|qwen-(plus|max|turbo|flash)|qwq)/.test(model)) return 'open:qwen3';
  if (model.startsWith('deepseek') || provider === 'deepseek') return 'estimate:o200k_base';
  if (
    /^(mistral|ministral|codestral|devstral|magistral|pixtral|open-mi)/.test(model) ||
    provider === 'mistral'
  )
    return 'estimate:cl100k_base';
  return 'chars/4';
}
