// chatfold — keep long LLM conversations inside the context window without losing a message.
// Public API: everything exported here (and from the subpath entries) is documented in the README.

// Stateless compaction (RT-1, HK-*)
export type { CompactOptions, CompactResult } from './compaction/compact.ts';
export { compact } from './compaction/compact.ts';
export type {
  BeforeCompactContext,
  BeforeCompactResult,
  CompactionEvent,
  CompactionHooks,
  CompactionReport,
  CompactionSummary,
  CompactionTrigger,
} from './compaction/types.ts';
// Errors
export type { ChatfoldErrorCode, ChatfoldErrorDetails } from './errors/chatfold-error.ts';
export { ChatfoldError } from './errors/chatfold-error.ts';
// Evaluation (EV-2, CLI-3)
export type { ReplayOptions, ReplayResult, ReplayTurn } from './evaluation/replay.ts';
export { replayConversation } from './evaluation/replay.ts';
export type { ChartOptions, ChartTurn } from './evaluation/replay-chart.ts';
export { renderReplayChart } from './evaluation/replay-chart.ts';
// Reactive overflow (RT-3)
export type { ContextOverflow, OverflowProvider } from './integrations/overflow.ts';
export { contextOverflowError, parseContextOverflow } from './integrations/overflow.ts';
// Messages: neutral model, converters, validator (MSG-1..4)
export type { AiSdkMessage, AiSdkMessageInput, AiSdkPart, AiSdkProviderOptions } from './messages/ai-sdk.ts';
export { fromAiSdk, toAiSdk } from './messages/ai-sdk.ts';
export type {
  AnthropicBlock,
  AnthropicMessage,
  AnthropicRequest,
  AnthropicRequestInput,
} from './messages/anthropic.ts';
export { fromAnthropic, toAnthropic } from './messages/anthropic.ts';
export type { CacheBreakpointOptions } from './messages/anthropic-cache.ts';
export { ANTHROPIC_MAX_BREAKPOINTS, withCacheBreakpoints } from './messages/anthropic-cache.ts';
export type {
  ClaudeCodeCompaction,
  ClaudeCodeImport,
  ClaudeCodeImportOptions,
} from './messages/claude-code.ts';
export { fromClaudeCode } from './messages/claude-code.ts';
export { contentHash } from './messages/content-hash.ts';
export type { ReasoningOutput, ToProviderOptions } from './messages/converter-options.ts';
export { DEFAULT_REASONING_OUTPUT } from './messages/converter-options.ts';
export type { GeminiContent, GeminiPart, GeminiRequest, GeminiRequestInput } from './messages/gemini.ts';
export { fromGemini, toGemini } from './messages/gemini.ts';
export type { NormalizeOptions } from './messages/normalize.ts';
export { DEFAULT_MAX_MESSAGE_CHARS, hasDerivedId, normalizeMessages } from './messages/normalize.ts';
export type { OpenAIContentPart, OpenAIMessage, OpenAIToolCall, ToOpenAIOptions } from './messages/openai.ts';
export { fromOpenAI, toOpenAI } from './messages/openai.ts';
export { INTERRUPTED_TOOL_RESULT } from './messages/pair-tool-results.ts';
export type { SweAgentHistoryItem, SweAgentTrajectory } from './messages/swe-agent.ts';
export { fromSweAgentTrajectory } from './messages/swe-agent.ts';
export type {
  AttachmentPart,
  JsonValue,
  Message,
  MessageInput,
  Part,
  Provider,
  ProviderMetadata,
  ReasoningPart,
  Role,
  TextPart,
  ToolCallPart,
  ToolDefinition,
  ToolResultPart,
  Usage,
} from './messages/types.ts';
export type { ValidateOptions, ValidationProblem, ValidationProblemKind } from './messages/validate.ts';
export { assertValid, VALIDATION_PROBLEM_KINDS, validate } from './messages/validate.ts';
// Models (MOD-*)
export type { ListModelsOptions } from './models/list-models.ts';
export { listModels } from './models/list-models.ts';
export type { LoadModelRegistryOptions } from './models/load-model-registry.ts';
export { loadModelRegistry } from './models/load-model-registry.ts';
export { modelFamilyTokenizer } from './models/model-family-tokenizer.ts';
export type { ModelEntry, ModelMatch, ModelMatchKind, ModelRegistry } from './models/registry.ts';
export { BUNDLED_MODELS_SOURCES, bundledModelRegistry, createModelRegistry } from './models/registry.ts';
export type { ModelOverrides, ResolvedModel, ResolveModelOptions } from './models/resolve-model.ts';
export { DEFAULT_MODEL, resolveModel } from './models/resolve-model.ts';
export type { ModelInfo, ModelPricing } from './models/types.ts';
// Budget, triggers, status (TRG-*)
export type { Budget, BudgetOptions } from './policy/budget.ts';
export { computeBudget, DEFAULT_SAFETY_MARGIN } from './policy/budget.ts';
export type { LoopGuardState } from './policy/loop-guard.ts';
export {
  INITIAL_LOOP_GUARD,
  isCompactionAllowed,
  recordCompaction,
  recordFailure,
  STALL_GAIN,
} from './policy/loop-guard.ts';
export type { OverflowNumbers } from './policy/overflow-window.ts';
export { windowAfterOverflow } from './policy/overflow-window.ts';
export type { ContextStatus, ContextStatusInput, SummaryStatus } from './policy/status.ts';
export { contextStatus } from './policy/status.ts';
export type { TriggerDecision, TriggerGroup, TriggerInput, Triggers } from './policy/triggers.ts';
export { DEFAULT_FLOOR, DEFAULT_TARGET, DEFAULT_TRIGGERS, evaluateTriggers } from './policy/triggers.ts';
// Sessions and stores (RT-1, ST-*)
export type {
  Chatfold,
  ChatfoldOptions,
  HistoryQuery,
  PreparedPrompt,
  PrepareOptions,
  Session,
  SessionCompactOptions,
  SessionEvent,
  SessionSnapshotContent,
  SessionStatus,
  SessionUsage,
} from './session/index.ts';
export {
  createChatfold,
  OVERFLOW_SHRINK,
  SUMMARIZER_RETRY_BASE_MS,
  SUMMARIZER_RETRY_MAX_MS,
} from './session/index.ts';
export { MemoryStore, memoryStore } from './stores/memory/index.ts';
export type {
  AppendRecord,
  MessageQuery,
  SearchQuery,
  SessionContext,
  SessionInfo,
  Snapshot,
  SnapshotInput,
  SnapshotKind,
  Store,
  StoredMessage,
  SummarySnapshotContent,
  WriteSnapshotOptions,
  WriteSnapshotResult,
} from './stores/types.ts';
// Strategies and pipelines (STR-*)
export type { ClipOptions } from './strategies/clip.ts';
export { clip, DEFAULT_CLIP_SHARE } from './strategies/clip.ts';
export type { ImportanceOptions, ImportanceWeights } from './strategies/importance.ts';
export { DEFAULT_IMPORTANCE_WEIGHTS, importance } from './strategies/importance.ts';
export type { MaskOptions } from './strategies/mask.ts';
export { DEFAULT_MASK_KEEP_RECENT, mask } from './strategies/mask.ts';
export type { PipelineRun } from './strategies/pipeline.ts';
export { pipeline, runPipeline } from './strategies/pipeline.ts';
export type { ProtectOptions } from './strategies/protect.ts';
export { DEFAULT_KEEP_RECENT } from './strategies/protect.ts';
export type {
  StrategyFactory,
  StrategyOptions,
  StrategyRegistry,
  StrategySpec,
} from './strategies/registry.ts';
export { createStrategyRegistry, HYBRID_STAGES } from './strategies/registry.ts';
export type { SummarizeStrategyOptions } from './strategies/summarize.ts';
export { DEFAULT_RETENTION_MESSAGES, DEFAULT_RETENTION_TOKENS, summarize } from './strategies/summarize.ts';
export type {
  BuiltInSupersedeRule,
  CallEffect,
  EditOutput,
  ListingFeature,
  ShellCommandAnalysis,
  ShellCommandOptions,
  SupersedeOptions,
  SupersedeRule,
  ToolCallView,
  ToolMapping,
} from './strategies/supersede/index.ts';
export {
  DEFAULT_IDEMPOTENT_TOOLS,
  DEFAULT_READ_ONLY_COMMANDS,
  DEFAULT_SUPERSEDE_MIN_SAVED_CHARS,
  DEFAULT_TOOL_MAPPINGS,
  normalizePath,
  parseShellCommand,
  supersede,
} from './strategies/supersede/index.ts';
export type { TrimOptions } from './strategies/trim.ts';
export { trimToTokens } from './strategies/trim.ts';
export type { TruncateOptions } from './strategies/truncate.ts';
export { truncate } from './strategies/truncate.ts';
export type { StageEffect, Strategy, StrategyContext, StrategyResult } from './strategies/types.ts';
// Summaries (SUM-*)
export type {
  FactLedger,
  Summarizer,
  SummarizeSpanOptions,
  SummaryRequest,
  SummaryResult,
  SummaryWithLedger,
} from './summarize/index.ts';
export {
  buildSummaryPrompt,
  extractiveSummary,
  extractLedger,
  formatSummaryMessage,
  parseSummaryMessage,
  recentFiles,
  summarizeSpan,
} from './summarize/index.ts';
// Token counting (TOK-*)
export type { CalibratedCounter, ReportedUsage } from './tokens/calibrated-counter.ts';
export { createCalibratedCounter } from './tokens/calibrated-counter.ts';
export type { ChatFormat, ToolFormat } from './tokens/chat-format.ts';
export type { CountTokensOptions } from './tokens/count-tokens.ts';
export { countTokens } from './tokens/count-tokens.ts';
export type { TokenCounterOptions, TokenizerId } from './tokens/create-token-counter.ts';
export { createTokenCounter, DEFAULT_CHARS_PER_TOKEN } from './tokens/create-token-counter.ts';
export { tokenizerForModel } from './tokens/tokenizer-for-model.ts';
export type { CountAccuracy, TokenCount, TokenCounter } from './tokens/types.ts';
