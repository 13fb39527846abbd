import { ChatfoldError } from '../errors/chatfold-error.ts';
import { assertMessages } from '../messages/check-messages.ts';
import type { Message, Part } from '../messages/types.ts';
import { validateChecked } from '../messages/validate.ts';
import { applyEdits, hasEdits, PlanEdits } from '../projection/edits.ts';
import type { CompactionFallback, CompactionSummary, StageEffect } from '../projection/types.ts';
import { countUpTo } from '../tokens/count-up-to.ts';
import { fitToBudget } from './truncate.ts';
import type { Strategy, StrategyContext, StrategyEdits, StrategyResult } from './types.ts';

/** The outcome of running stages over a projection. */
export interface PipelineRun {
  /** The projection after every stage (and the final fit). */
  readonly messages: readonly Message[];
  /** The stages' edits folded into one set relative to the input. */
  readonly edits: PlanEdits;
  readonly summary?: CompactionSummary;
  readonly stages: readonly StageEffect[];
  readonly fallbacks: readonly CompactionFallback[];
  readonly warnings: readonly string[];
}

/** Stages that apply the policy's retention, and so run in a forced compaction even below the target. */
const RETENTION_STAGES: ReadonlySet<string> = new Set(['summarize', 'truncate', 'importance']);

/** The structural signature of a part: its type and the call id it carries. */
function partShape(part: Part): string {
  return part.type === 'tool-call'
    ? `call:${part.id}`
    : part.type === 'tool-result'
      ? `result:${part.callId}`
      : part.type;
}

/** Whether every replacement keeps its original's role and part shapes (a stub, mask or clip). */
function preservesStructure(byId: ReadonlyMap<string, Message | undefined>, edits: StrategyEdits): boolean {
  if ((edits.drop?.length ?? 0) > 0 || (edits.insert?.length ?? 0) > 0) return false;
  for (const { id, message } of edits.replace ?? []) {
    const before = byId.get(id);
    if (before === undefined || before.role !== message.role || before.parts.length !== message.parts.length)
      return false;
    for (let p = 0; p < before.parts.length; p++) {
      if (partShape(before.parts[p] as Part) !== partShape(message.parts[p] as Part)) return false;
    }
  }
  return true;
}

function validationOptions(context: StrategyContext) {
  return {
    ...(context.provider === undefined ? {} : { provider: context.provider }),
    cache: context.cache,
    allowPendingToolCalls: true,
    // Empty messages are the caller's to send or not; compaction never creates them.
    ignore: ['empty-message' as const],
  };
}

/** Why a stage's edits were refused, or undefined when they are acceptable. */
function refusal(
  input: readonly Message[],
  edits: StrategyEdits,
  output: readonly Message[],
  context: StrategyContext,
): string | undefined {
  // The input messages the edits name, found in one pass (not a map of the whole input).
  const byId = new Map<string, Message | undefined>();
  for (const id of edits.drop ?? []) byId.set(id, undefined);
  for (const { id } of edits.replace ?? []) byId.set(id, undefined);
  for (const { beforeId } of edits.insert ?? []) if (beforeId !== null) byId.set(beforeId, undefined);
  for (const message of input) if (byId.has(message.id)) byId.set(message.id, message);
  // STR-8 enforced in code: protected messages are never dropped or replaced.
  for (const id of [...(edits.drop ?? []), ...(edits.replace ?? []).map((r) => r.id)]) {
    if (byId.get(id) === undefined) return `it edited ${id}, which is not in its input`;
    if (context.protectedIds.has(id)) return `it changed or removed protected message ${id}`;
  }
  for (const { beforeId } of edits.insert ?? []) {
    if (beforeId !== null && byId.get(beforeId) === undefined)
      return `it inserted before ${beforeId}, which is not in its input`;
  }
  // MSG-3 enforced in code: the projection stays structurally valid for the provider. The
  // input is valid (the planner checks it), so structure-preserving replacements are too.
  if (preservesStructure(byId, edits)) return undefined;
  // The stage's new messages get the entry check (a custom strategy can return anything); the
  // rest of the output is messages already checked.
  assertMessages(
    [
      ...(edits.replace ?? []).map((entry) => entry.message),
      ...(edits.insert ?? []).map((entry) => entry.message),
    ],
    `strategy output`,
    { ...(context.cache === undefined ? {} : { cache: context.cache }) },
  );
  const first = validateChecked(output, validationOptions(context))[0];
  return first === undefined
    ? undefined
    : `it produced an invalid projection (${first.kind}: ${first.message})`;
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Runs strategies in order (STR-7). Each stage runs only while the projection is above the
 * target; a stage that throws, breaks validity or touches a protected message is discarded
 * with a fallback record (the request must never fail because of a strategy). Finally the
 * projection is forced under the budget without any LLM call, whatever the stages were.
 * Aborting (`context.signal`) rejects with the signal's reason.
 */
export async function runPipeline(
  messages: readonly Message[],
  stages: readonly Strategy[],
  context: StrategyContext,
  counting?: {
    /** Count exactly (newest first) only this far (`countUpTo`); without it, every list is counted in full. */
    readonly limit: number;
    /** The input's tokens, as the caller measured them with the same limit. */
    readonly inputTokens: number;
  },
): Promise<PipelineRun> {
  const { counter } = context;
  const effects: StageEffect[] = [];
  const warnings: string[] = [];
  const fallbacks: CompactionFallback[] = [];
  const plan = new PlanEdits(messages);
  let summary: CompactionSummary | undefined;
  let current: readonly Message[] = messages;
  // With a limit, counted only as far as the comparisons with the target and the budget need
  // (issue 19 §3): a history far above the budget is not tokenized in full before its oldest
  // part is summarized.
  const measure = (list: readonly Message[]): number =>
    counting === undefined ? counter.count(list).total : countUpTo(counter, list, counting.limit).total;
  let tokens = counting?.inputTokens ?? measure(current);
  const stageContext: StrategyContext = {
    ...context,
    onFallback: (fallback) => {
      fallbacks.push(fallback);
      context.onFallback?.(fallback);
    },
  };
  const accept = (stage: string, result: StrategyResult, output: readonly Message[]): void => {
    const after = measure(output);
    effects.push({ stage, tokensBefore: tokens, tokensAfter: after, ...result.effect });
    plan.add(result.edits);
    if (result.edits.summary !== undefined) summary = result.edits.summary;
    current = output;
    tokens = after;
  };
  let forcedDone = false;
  for (const stage of stages) {
    context.signal?.throwIfAborted();
    // Cheap stages run only while above the target; a forced run (manual, a messages trigger)
    // still runs the stages that apply the retention (summarize, truncate, importance).
    const isForced = context.force === true && !forcedDone && RETENTION_STAGES.has(stage.name);
    if (tokens <= context.target && !isForced) continue;
    if (RETENTION_STAGES.has(stage.name)) forcedDone = true;
    let result: StrategyResult;
    try {
      result = await stage.apply(current, stageContext);
    } catch (error) {
      context.signal?.throwIfAborted();
      // Not stage faults: the protected minimum cannot fit, or the policy makes a failed summary an error.
      if (
        ChatfoldError.hasCode(error, 'E_BUDGET_IMPOSSIBLE') ||
        ChatfoldError.hasCode(error, 'E_SUMMARY_FAILED')
      )
        throw error;
      stageContext.onFallback?.({
        source: 'stage',
        stage: stage.name,
        fallback: 'skipped',
        reason: `stage ${stage.name} failed: ${errorText(error)}`,
      });
      continue;
    }
    if (!hasEdits(result.edits)) {
      effects.push({ stage: stage.name, tokensBefore: tokens, tokensAfter: tokens, ...result.effect });
      continue;
    }
    const output = applyEdits(current, result.edits);
    const reason = refusal(current, result.edits, output, context);
    if (reason !== undefined) {
      stageContext.onFallback?.({
        source: 'stage',
        stage: stage.name,
        fallback: 'skipped',
        reason: `stage ${stage.name} was discarded: ${reason}`,
      });
      continue;
    }
    accept(stage.name, result, output);
  }
  if (tokens > context.budget) {
    // The deterministic backstop always runs last, whatever strategy was chosen ("always fit").
    const result = fitToBudget(current, context);
    const output = applyEdits(current, result.edits);
    const problems = validateChecked(output, validationOptions(context));
    if (problems.length > 0) {
      throw new ChatfoldError(
        'E_INVALID_MESSAGES',
        `the final fit produced an invalid projection: ${problems[0]?.message}`,
        { problems },
      );
    }
    accept('fit', result, output);
  }
  return {
    messages: current,
    edits: plan,
    ...(summary === undefined ? {} : { summary }),
    stages: effects,
    fallbacks,
    warnings,
  };
}

/**
 * Composes strategies into one named strategy (STR-7), e.g. a custom pipeline registered
 * beside the built-ins. The final budget fit is left to the planner.
 */
export function pipeline(name: string, stages: readonly Strategy[]): Strategy {
  return {
    name,
    async apply(messages, context) {
      const run = await runPipeline(messages, stages, { ...context, budget: Number.POSITIVE_INFINITY });
      const sum = (key: 'dropped' | 'stubbed' | 'masked' | 'summarized' | 'clipped'): number =>
        run.stages.reduce((total, effect) => total + effect[key], 0);
      return {
        edits: {
          drop: run.edits.dropped,
          replace: run.edits.replaced,
          insert: run.edits.inserted,
          ...(run.summary === undefined ? {} : { summary: run.summary }),
        },
        effect: {
          dropped: sum('dropped'),
          stubbed: sum('stubbed'),
          masked: sum('masked'),
          summarized: sum('summarized'),
          clipped: sum('clipped'),
          notes: run.stages.flatMap((effect) => effect.notes.map((note) => `${effect.stage}: ${note}`)),
        },
      };
    },
  };
}
