/**
 * The tokenizer chatfold uses for a model family (MOD-1; TOK-2, TOK-3, TOK-7). Ids are the
 * ones chatfold's counters understand:
 * - `openai:o200k_base` for GPT-4o / 4.1 / 4.5 / 5 / 6 and the o-series;
 *   `openai:cl100k_base` for GPT-4 and GPT-3.5 (exact, TOK-2);
 * - `anthropic:claude` for Claude, `google:gemini` for Gemini and Gemma 1/2 — calibrated local
 *   estimates (TOK-4 counts exactly through the API);
 * - the open models' own tokenizers with their chat templates, loaded by
 *   `createOpenModelTokenCounter` from `chatfold/open-models` (TOK-3): `open:llama3` (Llama 3),
 *   `open:llama3_1` (Llama 3.1–3.3), `open:qwen3` (Qwen 2.5 / 3), `open:deepseek_v3` (DeepSeek
 *   V3 / R1 and the DeepSeek API), `open:gemma3` (Gemma 3), `open:gptoss` (gpt-oss, harmony);
 * - `estimate:o200k_base` for older DeepSeek models and `estimate:cl100k_base` for Mistral: the
 *   encodings ai-tokenizer measured closest to those providers' counts (calibrated);
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
  // gpt-oss: o200k's vocabulary in the harmony chat format.
  if (model.startsWith('gpt-oss')) return 'open:gptoss';
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-6|chatgpt-|o[1-9](-|$)|codex)/.test(model))
    return 'openai:o200k_base';
  if (/^(gpt-4|gpt-3\.5|text-embedding-(3|ada))/.test(model)) return 'openai:cl100k_base';
  if (model.startsWith('claude') || provider === 'anthropic') return 'anthropic:claude';
  // Gemma 3 has its own 262k vocabulary; Gemma 1/2 and Gemini are estimated (no public Gemini tokenizer).
  if (/^gemma-?3/.test(model)) return 'open:gemma3';
  if (/^(gemini|gemma|learnlm)/.test(model)) return 'google:gemini';
  // Llama 3.x share one 128k-vocabulary tokenizer; 3.1+ have their own template (tool calls,
  // generation prompt only when asked). Llama 4 has a different tokenizer (not bundled).
  if (/^(meta-)?llama-?3(\.[1-9]|-[1-9]-)/.test(model)) return 'open:llama3_1';
  if (/^(meta-)?llama-?3/.test(model)) return 'open:llama3';
  // Qwen 2.5 and 3 (open weights and the hosted qwen-plus / qwen3-max) share one BPE vocabulary.
  if (/^(qwen-?(2\.5|3)|qwen-(plus|max|turbo|flash)|qwq)/.test(model)) return 'open:qwen3';
  // DeepSeek V3's tokenizer serves V3.x, R1 and the API's deepseek-chat / deepseek-reasoner.
  if (/^deepseek-(chat|reasoner|v3|r1)/.test(model) || provider === 'deepseek') return 'open:deepseek_v3';
  if (model.startsWith('deepseek')) return 'estimate:o200k_base';
  if (
    /^(mistral|ministral|codestral|devstral|magistral|pixtral|open-mi)/.test(model) ||
    provider === 'mistral'
  )
    return 'estimate:cl100k_base';
  return 'chars/4';
}
