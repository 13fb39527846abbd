// chatfold — keep long LLM conversations inside the context window without losing a message.
// The root entry holds what an app calls; every export is in the README's API reference.
// Toolkits live behind subpaths: chatfold/strategies, chatfold/summarize, chatfold/models,
// chatfold/evaluation; stores and SDK integrations behind their own (chatfold/sqlite, …).

// Background compaction (issue 13); the pg-boss queue is chatfold/pg-boss
export type {
  CompactionJob,
  CompactionJobContext,
  CompactionQueue,
  CompactionQueueEvent,
  CompactionWorkerOptions,
  DeadCompactionJob,
  InProcessQueue,
  InProcessQueueOptions,
} from './background/index.ts';
export { createInProcessQueue, runCompactionWorker } from './background/index.ts';
// Compaction as a plan (RT-1, HK-*)
export { applyCompactionPlan } from './compaction/apply-plan.ts';
export type { CompactResult } from './compaction/compact.ts';
export { compact } from './compaction/compact.ts';
export type { CompactionSettings, CompactOptions, ModelOptions } from './compaction/options.ts';
export { planCompaction } from './compaction/plan-compaction.ts';
export type {
  BeforeCompactContext,
  BeforeCompactResult,
  CompactionEvent,
  CompactionFallback,
  CompactionHooks,
  CompactionMode,
  CompactionPlan,
  CompactionReport,
  CompactionSummary,
  PlanInsertion,
  PlanReplacement,
  StageEffect,
  SummaryCoverage,
} from './compaction/types.ts';
export type { Defaults } from './defaults.ts';
export { DEFAULTS } from './defaults.ts';
// Errors
export type {
  ChatfoldErrorCode,
  ChatfoldErrorDetails,
  ChatfoldErrorDetailsMap,
} from './errors/chatfold-error.ts';
export { ChatfoldError } from './errors/chatfold-error.ts';
// Reactive overflow (RT-3)
export type { ContextOverflow, OverflowProvider } from './integrations/overflow.ts';
export { parseContextOverflow } from './integrations/overflow.ts';
// Messages: neutral model, converters, validator (MSG-1..4)
export type { AiSdkMessage, AiSdkMessageInput, AiSdkPart, AiSdkProviderOptions } from './messages/ai-sdk.ts';
export { fromAiSdk, toAiSdk } from './messages/ai-sdk.ts';
export type {
  AnthropicBetaRequest,
  AnthropicBlock,
  AnthropicMessage,
  AnthropicRequest,
  AnthropicRequestInput,
  ToAnthropicOptions,
} from './messages/anthropic.ts';
export { fromAnthropic, toAnthropic } from './messages/anthropic.ts';
export type { CacheBreakpointOptions } from './messages/anthropic-cache.ts';
export { withCacheBreakpoints } from './messages/anthropic-cache.ts';
export type { AssertMessagesOptions } from './messages/check-messages.ts';
export { assertMessages } from './messages/check-messages.ts';
export type {
  ClaudeCodeCompaction,
  ClaudeCodeImport,
  ClaudeCodeImportOptions,
} from './messages/claude-code.ts';
export { fromClaudeCode, importClaudeCode } from './messages/claude-code.ts';
export type { ReasoningOutput, ToProviderOptions } from './messages/converter-options.ts';
export type { EngineCache } from './messages/engine-cache.ts';
export { createEngineCache } from './messages/engine-cache.ts';
export type { GeminiContent, GeminiPart, GeminiRequest, GeminiRequestInput } from './messages/gemini.ts';
export { fromGemini, toGemini } from './messages/gemini.ts';
export type { NormalizeOptions } from './messages/normalize.ts';
export { normalizeMessages } from './messages/normalize.ts';
export type { OpenAIContentPart, OpenAIMessage, OpenAIToolCall, ToOpenAIOptions } from './messages/openai.ts';
export { fromOpenAI, toOpenAI } from './messages/openai.ts';
export type { PruneMessagesOptions, PruneScope, ToolCallPruning } from './messages/prune-messages.ts';
export { pruneMessages } from './messages/prune-messages.ts';
export type { SweAgentHistoryItem, SweAgentTrajectory } from './messages/swe-agent.ts';
export { fromSweAgentTrajectory } from './messages/swe-agent.ts';
export { toolsFromAiSdk } from './messages/tools/ai-sdk-tools.ts';
export { toolsFromAnthropic } from './messages/tools/anthropic-tools.ts';
export { toolsFromGemini } from './messages/tools/gemini-tools.ts';
export { toolsFromOpenAI } from './messages/tools/openai-tools.ts';
export type { ToolsInput } from './messages/tools/to-tool-definitions.ts';
export { toToolDefinitions } from './messages/tools/to-tool-definitions.ts';
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
export { assertValid, validate } from './messages/validate.ts';
// Models (MOD-*): the registry itself is in chatfold/models
export type { ListModelsOptions } from './models/list-models.ts';
export { listModels } from './models/list-models.ts';
export type { ResolvedModel, ResolveModelOptions } from './models/resolve-model.ts';
export { resolveModel } from './models/resolve-model.ts';
export type { Budget } from './policy/budget.ts';
export type {
  ContextPolicy,
  ContextPolicyInput,
  PolicyOverrides,
  TriggerGroup,
} from './policy/context-policy.ts';
export { contextPolicySchema, parsePolicy } from './policy/context-policy.ts';
export type { CompactionDecision, ContextMeasure, TriggerCondition } from './policy/decide.ts';
export { decide, decideAhead } from './policy/decide.ts';
export type { PolicyPresetName, PolicySpec } from './policy/presets.ts';
export { POLICIES, POLICY_PRESET_NAMES, resolvePolicy } from './policy/presets.ts';
export type { ContextStatus } from './policy/status.ts';
// Sessions and stores (RT-1, ST-*)
export type {
  Chatfold,
  ChatfoldOptions,
  CompactionRecord,
  ContextBreakdown,
  HistoryEntry,
  HistoryQuery,
  HistoryStatus,
  PreparedPrompt,
  PrepareOptions,
  RecallSource,
  Session,
  SessionCompactOptions,
  SessionEvent,
  SessionSnapshotContent,
  SessionStatus,
  SessionUsage,
} from './session/index.ts';
export {
  answerRecall,
  createChatfold,
  RECALL_LIMITS,
  RECALL_TOOL_NAME,
  recallToolDefinition,
} from './session/index.ts';
export { memoryStore } from './stores/memory/index.ts';
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
export type { ProtectOptions } from './strategies/protect.ts';
export type {
  BuiltInStrategyName,
  StrategyName,
  StrategyOptions,
  StrategySpec,
} from './strategies/registry.ts';
// Trimming (STR-3): a tool-group-safe drop-in for LangChain's trimMessages
export type {
  LangChainMessageClass,
  MessagesTokenCounter,
  TextSplitter,
  TrimMessageType,
  TrimMessageTypes,
  TrimOptions,
} from './strategies/trim.ts';
export { trimToTokens } from './strategies/trim.ts';
export type { Strategy, StrategyContext, StrategyEdits, StrategyResult } from './strategies/types.ts';
export type { FactLedger, Summarizer, SummarizerOutput, SummaryRequest } from './summarize/types.ts';
// Token counting (TOK-*)
export type {
  CalibratedCounter,
  ReportedUsage,
  UnderReport,
  UnderReportReason,
  UsageVerdict,
} from './tokens/calibrated-counter.ts';
export {
  CALIBRATION_BOUNDS,
  checkReportedUsage,
  createCalibratedTokenCounter,
  UNDER_REPORT_TOLERANCE,
} from './tokens/calibrated-counter.ts';
export type { CountTokensOptions } from './tokens/count-tokens.ts';
export { countTokens } from './tokens/count-tokens.ts';
export type { TokenCounterOptions, TokenizerId } from './tokens/create-token-counter.ts';
export { createTokenCounter } from './tokens/create-token-counter.ts';
export type { ExtendTokenCountOptions } from './tokens/extend-count.ts';
export { extendTokenCount } from './tokens/extend-count.ts';
export type {
  CountAccuracy,
  CountOptions,
  ExactTokenCounter,
  FunctionCallChoice,
  TokenCount,
  TokenCounter,
  ToolChoice,
} from './tokens/types.ts';
