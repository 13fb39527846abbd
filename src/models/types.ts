/** Prices in US dollars per one million tokens; `undefined` when the dataset does not say. */
export interface ModelPricing {
  readonly input?: number;
  readonly output?: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
}

/** What chatfold knows about a model (MOD-1). */
export interface ModelInfo {
  /** Canonical id as resolved, e.g. `gpt-4o`, `claude-sonnet-4-5`. */
  readonly id: string;
  /** `openai`, `anthropic`, `google`, `meta`, … */
  readonly provider: string;
  /** Maximum input tokens (the context window). */
  readonly contextWindow: number;
  /** Maximum output tokens per response. */
  readonly maxOutputTokens: number;
  /** Tokenizer id the counter factory understands, e.g. `openai:o200k_base`, `anthropic:claude`. */
  readonly tokenizer: string;
  readonly pricing: ModelPricing;
  /** Where the answer came from (MOD-2). */
  readonly source: 'config' | 'registry' | 'default';
}
