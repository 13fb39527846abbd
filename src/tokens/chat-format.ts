/**
 * Chat-format overhead per tokenizer family (TOK-2). OpenAI numbers come from OpenAI's cookbook
 * "How to count tokens with tiktoken" (`num_tokens_from_messages`: 3 tokens per message, 1 per
 * `name`, 3 to prime the reply), which matches what the API reports for the cookbook's examples
 * (test: 129 tokens with cl100k_base, 124 with o200k_base). Tool-definition parameters are the
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
  readonly tools: ToolFormat;
}

/**
 * OpenAI's own formula for function definitions, from the cookbook "How to count tokens with
 * tiktoken" (`num_tokens_for_tools`): per function `functionInit` + tokens of `name:description`,
 * `propertiesInit` once, per property `propertyKey` + tokens of `key:type:description`, enums
 * `enumInit` + per item `enumItem` + its tokens, and `functionsEnd` once. Matches the API's
 * reported 101 (gpt-4o) and 105 (gpt-4, gpt-3.5-turbo) tokens for the cookbook's example (test).
 */
export interface CookbookToolFormula {
  readonly functionInit: number;
  readonly propertiesInit: number;
  readonly propertyKey: number;
  readonly enumInit: number;
  readonly enumItem: number;
  readonly functionsEnd: number;
}

/** Parameters of the tool-definition formula (see `countToolDefinitions`). */
export interface ToolFormat {
  /** When set, tool definitions are counted with OpenAI's cookbook formula instead. */
  readonly cookbook?: CookbookToolFormula;
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
const COOKBOOK = { propertiesInit: 3, propertyKey: 3, enumInit: -3, enumItem: 3, functionsEnd: 12 };

/** GPT-4o family (o200k_base). */
export const OPENAI_CHAT_FORMAT: ChatFormat = {
  perMessage: 3,
  perName: 1,
  perPrompt: 3,
  perToolCall: 3,
  contentMultiplier: 1,
  countsReasoning: false,
  tools: { ...OPENAI_MEASURED_TOOLS, cookbook: { functionInit: 7, ...COOKBOOK } },
};

/** GPT-4 and GPT-3.5 (cl100k_base): the same chat format, 10 tokens per function. */
export const OPENAI_CL100K_CHAT_FORMAT: ChatFormat = {
  ...OPENAI_CHAT_FORMAT,
  tools: { ...OPENAI_MEASURED_TOOLS, cookbook: { functionInit: 10, ...COOKBOOK } },
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
