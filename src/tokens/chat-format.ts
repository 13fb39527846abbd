/**
 * Chat-format overhead per tokenizer family (TOK-2). OpenAI numbers come from OpenAI's cookbook
 * "How to count tokens with tiktoken" (`num_tokens_from_messages`: 3 tokens per message, 1 per
 * `name`, 3 to prime the reply), which matches what the API reports for the cookbook's examples
 * (test: 129 tokens with cl100k_base, 124 with o200k_base). OpenAI tool definitions count as
 * the API renders them (`FunctionNamespaceFormat`); the other formats' tool parameters are the
 * ones ai-tokenizer measured against each provider's API (its model table, `tokens`).
 */
export interface ChatFormat {
  /** Tokens added for every message. */
  readonly perMessage: number;
  /** Tokens added when a message has a `name`. */
  readonly perName: number;
  /** Tokens added once per prompt (reply priming). */
  readonly perPrompt: number;
  /** Tokens added per tool call inside an assistant message. */
  readonly perToolCall: number;
  /** Multiplier on content tokens (ai-tokenizer's Claude calibration: 1.1). */
  readonly contentMultiplier: number;
  /** Whether reasoning parts are sent back (Anthropic thinking blocks are; OpenAI Chat has no field). */
  readonly countsReasoning: boolean;
  /**
   * When set, a result of a legacy `function_call` (OpenAI `role: 'function'`, kept by
   * `fromOpenAI`) counts as that message: role `function`, its function name as a `name`, and
   * this adjustment (published: −2).
   */
  readonly perFunctionMessage?: number;
  readonly tools: ToolFormat;
}

/**
 * How OpenAI's chat models count function/tool definitions (TOK-2): the tokens of the
 * TypeScript namespace the API writes into the prompt (`renderFunctionNamespace`) plus the
 * constants below. Every constant comes from requests whose `prompt_tokens` the API reported:
 * hmarr/openai-chat-tokens (36 cases, gpt-3.5-turbo), niieani/gpt-tokenizer (32 cases, gpt-4o)
 * and pamelafox/openai-messages-token-helper (18 cases with `tools` and `tool_choice`); see
 * test/count-tokens/openai-published-cases.test.ts.
 */
export interface FunctionNamespaceFormat {
  /** Added once when there are definitions (published: 9). */
  readonly perRequest: number;
  /**
   * Added when the prompt also has a system message (published: −4): the definitions join it
   * instead of opening a message of their own. Its text then ends with a newline.
   */
  readonly withSystemMessage: number;
  /** `tool_choice: 'none'` or legacy `function_call: 'none'` (published: 1). */
  readonly choiceNone: number;
  /** `tool_choice: 'required'`: no published count; taken to be `none`'s. */
  readonly choiceRequired: number;
  /** `tool_choice: { type: 'function', function: { name } }`, plus the name (published: 7). */
  readonly choiceNamed: number;
  /** Legacy `function_call: { name }`, plus the name (published: 4). */
  readonly functionCallNamed: number;
}

/** Parameters of the tool-definition formula (see `countSchemaProperties` in create-token-counter.ts). */
export interface ToolFormat {
  /** When set, tool definitions are counted as OpenAI renders them, and the rest is unused. */
  readonly functionNamespace?: FunctionNamespaceFormat;
  readonly toolsExist: number;
  readonly perTool: number;
  readonly perDescription: number;
  readonly perFirstProperty: number;
  readonly perAdditionalProperty: number;
  readonly perPropertyDescription: number;
  readonly perEnum: number;
}

const OPENAI_MEASURED_TOOLS = {
  toolsExist: 16,
  perTool: 6,
  perDescription: 1,
  perFirstProperty: 5,
  perAdditionalProperty: 3,
  perPropertyDescription: 2,
  perEnum: 7,
};
const FUNCTION_NAMESPACE: FunctionNamespaceFormat = {
  perRequest: 9,
  withSystemMessage: -4,
  choiceNone: 1,
  choiceRequired: 1,
  choiceNamed: 7,
  functionCallNamed: 4,
};

/** OpenAI chat models: GPT-4o family (o200k_base), GPT-4 and GPT-3.5 (cl100k_base) alike. */
export const OPENAI_CHAT_FORMAT: ChatFormat = {
  perMessage: 3,
  perName: 1,
  perPrompt: 3,
  perToolCall: 3,
  contentMultiplier: 1,
  countsReasoning: false,
  perFunctionMessage: -2,
  tools: { ...OPENAI_MEASURED_TOOLS, functionNamespace: FUNCTION_NAMESPACE },
};

export const ANTHROPIC_CHAT_FORMAT: ChatFormat = {
  perMessage: 2,
  perName: 0,
  perPrompt: 6,
  perToolCall: 10,
  contentMultiplier: 1.1,
  countsReasoning: true,
  tools: {
    toolsExist: 549,
    perTool: 53,
    perDescription: 5,
    perFirstProperty: 13,
    perAdditionalProperty: 12,
    perPropertyDescription: 5,
    perEnum: 9,
  },
};

/** Used with the approximate chars/N counter: a plain per-message allowance. */
export const GENERIC_CHAT_FORMAT: ChatFormat = {
  perMessage: 4,
  perName: 1,
  perPrompt: 3,
  perToolCall: 3,
  contentMultiplier: 1,
  countsReasoning: true,
  tools: OPENAI_MEASURED_TOOLS,
};
