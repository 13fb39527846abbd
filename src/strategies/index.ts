// chatfold/strategies — the toolkit for writing and composing strategies (STR-*, TRG-*).
// Apps call `compact()` / sessions from `chatfold`; this entry is for strategy authors.

export type { Budget, BudgetOptions } from '../policy/budget.ts';
export { computeBudget } from '../policy/budget.ts';
export type { CompactionDecision, ContextMeasure, TriggerCondition } from '../policy/decide.ts';
export { decide, policyBudget, policyTarget } from '../policy/decide.ts';
export type { ContextStatus, ContextStatusInput, SummaryStatus } from '../policy/status.ts';
export { contextStatus } from '../policy/status.ts';
export { applyEdits } from '../projection/edits.ts';
export type { AppliedStrategyResult } from './apply-strategy.ts';
export { applyStrategy, withProjection } from './apply-strategy.ts';
export type { ClipOptions } from './clip.ts';
export { clip } from './clip.ts';
export type { ImportanceOptions, ImportanceWeights } from './importance.ts';
export { importance } from './importance.ts';
export type { MaskOptions } from './mask.ts';
export { mask } from './mask.ts';
export type { PipelineRun } from './pipeline.ts';
export { pipeline, runPipeline } from './pipeline.ts';
export type { ProtectOptions } from './protect.ts';
export type { StrategyFactory, StrategyOptions, StrategyRegistry, StrategySpec } from './registry.ts';
export { createStrategyRegistry, HYBRID_STAGES } from './registry.ts';
export type { SummarizeStrategyOptions } from './summarize.ts';
export { summarize } from './summarize.ts';
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
} from './supersede/index.ts';
export { DEFAULT_TOOL_MAPPINGS, normalizePath, parseShellCommand, supersede } from './supersede/index.ts';
export type { TruncateOptions } from './truncate.ts';
export { truncate } from './truncate.ts';
export type { Strategy, StrategyContext, StrategyEdits, StrategyResult } from './types.ts';
