/**
 * The wordings of context-overflow errors (RT-3), one entry per provider or server, with the
 * numbers they carry. Sources are real error bodies quoted in public issues; the lists kept by
 * pi-mono (`packages/ai/src/utils/overflow.ts`), opencode, Cline and LiteLLM
 * (`exception_mapping_utils.py`) pointed at where to look. Specific wordings come first so the
 * numbers are read from the best match; bare phrases without numbers come last.
 */

/** Whose wording an overflow error uses. OpenAI-compatible servers that copy OpenAI's wording count as `openai`. */
export type OverflowProvider = 'openai' | 'anthropic' | 'gemini' | 'unknown';

/** One known wording and how to read its numbers. */
export interface OverflowPattern {
  readonly provider: OverflowProvider;
  /** Where the wording comes from (cited so the list can be checked and kept current). */
  readonly source: string;
  readonly pattern: RegExp;
  /** The limit and the prompt size, from the match; default: none. */
  readonly read?: (match: RegExpExecArray) => { readonly limit?: number; readonly actual?: number };
}

/** `128,000` → 128000; undefined when absent. */
export const toCount = (text: string | undefined): number | undefined => {
  if (text === undefined) return undefined;
  const value = Number(text.replaceAll(/[,_]/g, ''));
  return Number.isSafeInteger(value) ? value : undefined;
};

const N = String.raw`(\d[\d,]*)`;
const limitActual =
  (limitGroup: number, actualGroup: number) =>
  (match: RegExpExecArray): { limit?: number; actual?: number } => {
    const limit = toCount(match[limitGroup]);
    const actual = toCount(match[actualGroup]);
    return { ...(limit === undefined ? {} : { limit }), ...(actual === undefined ? {} : { actual }) };
  };
const limitOnly = (group: number) => (match: RegExpExecArray) => {
  const limit = toCount(match[group]);
  return limit === undefined ? {} : { limit };
};

export const OVERFLOW_PATTERNS: readonly OverflowPattern[] = [
  {
    provider: 'anthropic',
    source: 'Anthropic Messages API, 400 invalid_request_error (OpenHands/OpenHands#4894)',
    pattern: new RegExp(`prompt is too long: ${N} tokens > ${N} maximum`, 'i'),
    read: limitActual(2, 1),
  },
  {
    provider: 'anthropic',
    source: 'Anthropic Messages API when input + max_tokens > window (BrokkAi/brokk-app#540)',
    pattern: new RegExp(`input length and .?max_tokens.? exceed context limit: ${N} \\+ ${N} > ${N}`, 'i'),
    read: (match) => {
      const input = toCount(match[1]);
      const output = toCount(match[2]);
      const limit = toCount(match[3]);
      return {
        ...(limit === undefined ? {} : { limit }),
        ...(input === undefined || output === undefined ? {} : { actual: input + output }),
      };
    },
  },
  {
    provider: 'gemini',
    // The prompt size is sometimes left out: "The input token count exceeds the maximum number
    // of tokens allowed (1048576)." (arkavo-org/arkavo-edge#371, google-gemini/gemini-cli#22609).
    source: 'Gemini API, 400 INVALID_ARGUMENT (google-gemini/gemini-cli#6678, #12098)',
    pattern: new RegExp(
      `input token count(?: \\(?${N}\\)?)? exceeds the maximum number of tokens allowed \\(?${N}\\)?`,
      'i',
    ),
    read: limitActual(2, 1),
  },
  {
    provider: 'openai',
    source:
      "OpenAI Chat Completions context_length_exceeded; vLLM, DeepSeek and OpenRouter copy it ('you requested')",
    pattern: new RegExp(
      `maximum context length is ${N} tokens[.,]? However,? (?:your messages resulted in|you requested)(?: about)? ${N} tokens`,
      'i',
    ),
    read: limitActual(1, 2),
  },
  {
    provider: 'openai',
    source: 'Azure OpenAI / OpenAI for GPT-5 (BerriAI/litellm#15968)',
    pattern: new RegExp(
      `Input tokens exceed the configured limit of ${N} tokens\\.? Your messages resulted in ${N} tokens`,
      'i',
    ),
    read: limitActual(1, 2),
  },
  {
    provider: 'openai',
    source: "vLLM when input + max_tokens > max_model_len ('your request has N input tokens')",
    pattern: new RegExp(
      `(?:is too large: ${N}\\.? )?This model's maximum context length is ${N} tokens and your request has ${N} input tokens`,
      'i',
    ),
    read: (match) => {
      const output = toCount(match[1]) ?? 0;
      const limit = toCount(match[2]);
      const input = toCount(match[3]);
      return {
        ...(limit === undefined ? {} : { limit }),
        ...(input === undefined ? {} : { actual: input + output }),
      };
    },
  },
  {
    provider: 'unknown',
    source: 'vLLM scheduler (vllm-project/vllm#10440)',
    pattern: new RegExp(`Input prompt \\(${N} tokens\\) is too long and exceeds limit of ${N}`, 'i'),
    read: limitActual(2, 1),
  },
  {
    provider: 'unknown',
    source: 'vLLM input validation',
    pattern: new RegExp(`prompt \\(length ${N}\\) is longer than the maximum model length of ${N}`, 'i'),
    read: limitActual(2, 1),
  },
  {
    provider: 'unknown',
    source: 'llama.cpp server exceed_context_size_error (ggml-org/llama.cpp#19774)',
    pattern: new RegExp(
      `request \\(${N} tokens\\) exceeds the available context size \\(${N} tokens\\)`,
      'i',
    ),
    read: limitActual(2, 1),
  },
  {
    provider: 'unknown',
    source: 'llama-cpp-python server (fedora-copr/logdetective-website#193)',
    pattern: new RegExp(`Requested tokens \\(${N}\\) exceed context window of ${N}`, 'i'),
    read: limitActual(2, 1),
  },
  {
    provider: 'unknown',
    source: 'LM Studio (lmstudio-ai/lmstudio-bug-tracker#237, #546)',
    pattern: new RegExp(
      `Trying to keep the first ${N} tokens when context the overflows\\.? However, the model is loaded with context length of only ${N} tokens`,
      'i',
    ),
    read: limitActual(2, 1),
  },
  {
    provider: 'unknown',
    source: 'LM Studio mid-generation overflow (lmstudio-ai/lmstudio-bug-tracker#1251)',
    pattern: new RegExp(`Reached context length of ${N} tokens`, 'i'),
    read: limitOnly(1),
  },
  {
    provider: 'unknown',
    source: 'xAI Grok (pi-mono overflow.ts)',
    pattern: new RegExp(`maximum prompt length is ${N} but the request contains ${N} tokens`, 'i'),
    read: limitActual(1, 2),
  },
  {
    provider: 'unknown',
    source: 'Mistral',
    pattern: new RegExp(
      `Prompt contains ${N} tokens.{0,40}? too large for model with ${N} maximum context length`,
      'i',
    ),
    read: limitActual(2, 1),
  },
  {
    provider: 'unknown',
    source: 'Together AI',
    pattern: new RegExp(
      `The input \\(${N} tokens\\) is longer than the model's context length \\(${N} tokens\\)`,
      'i',
    ),
    read: limitActual(2, 1),
  },
  {
    provider: 'unknown',
    source: 'Moonshot Kimi',
    pattern: new RegExp(`exceeded model token limit: ${N}(?: \\(requested: ${N}\\))?`, 'i'),
    read: limitActual(1, 2),
  },
  {
    provider: 'unknown',
    source: 'Alibaba DashScope (Qwen)',
    pattern: new RegExp(`Range of input length should be \\[1, ${N}\\]`, 'i'),
    read: limitOnly(1),
  },
  // Wordings without both numbers.
  {
    provider: 'openai',
    source: 'OpenAI Responses API context_length_exceeded',
    pattern: /Your input exceeds the context window of this model/i,
  },
  {
    provider: 'openai',
    source: "OpenAI's wording without the prompt size (OpenRouter, Groq and others)",
    pattern: new RegExp(`maximum context length is ${N} tokens`, 'i'),
    read: limitOnly(1),
  },
  { provider: 'openai', source: 'Groq, Cerebras', pattern: /Please reduce the length of the messages/i },
  {
    provider: 'anthropic',
    source: 'Anthropic 413 request_too_large (the request body is over the size limit)',
    pattern: /request_too_large|Request exceeds the maximum size/i,
  },
  { provider: 'anthropic', source: 'Anthropic without numbers', pattern: /prompt is too long/i },
  {
    provider: 'unknown',
    source: 'Ollama with truncate: false (only the excess is given)',
    pattern:
      /prompt too long; exceeded (?:max )?context length|input length exceeds the context length|input exceeds maximum context length/i,
  },
  {
    provider: 'unknown',
    source: 'llama.cpp server / LM Studio MLX (oobabooga/textgen#7257)',
    pattern: /exceeds the available context size|context size has been exceeded|exceed_context_size_error/i,
  },
  { provider: 'unknown', source: 'Amazon Bedrock', pattern: /input is too long for requested model/i },
  {
    provider: 'unknown',
    source: 'LiteLLM ContextWindowExceededError, z.ai and generic OpenAI-compatible servers',
    pattern:
      /ContextWindowExceeded|model_context_window_exceeded|context[_ ]length[_ ]exceeded|context window (?:exceeded|exceeds limit)|exceeds? (?:the )?(?:model'?s? )?(?:maximum )?context (?:window|length|limit)/i,
  },
];
