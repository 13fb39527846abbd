import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { Message } from '../messages/types.ts';
import { validate } from '../messages/validate.ts';
import { fitToBudget } from './truncate.ts';
import type { StageEffect, Strategy, StrategyContext, StrategyResult } from './types.ts';

/** The outcome of running stages over a projection. */
export interface PipelineRun {
  readonly messages: readonly Message[];
  readonly stages: readonly StageEffect[];
  readonly warnings: readonly string[];
}

/** The structural signature of a part: its type and the call id it carries. */
function partShape(part: Message['parts'][number]): string {
  return part.type === 'tool-call'
    ? `call:${part.id}`
    : part.type === 'tool-result'
      ? `result:${part.callId}`
      : part.type;
}

/**
 * Whether `output` has the same structure as `input`: same length, and each message either the
 * same object or one with the same id, role and part shapes (a stub, a mask, a clip). Such an
 * output is exactly as valid as its input, so the full validation can be skipped.
 */
function preservesStructure(input: readonly Message[], output: readonly Message[]): boolean {
  if (input.length !== output.length) return false;
  for (let i = 0; i < input.length; i++) {
    const before = input[i] as Message;
    const after = output[i] as Message;
    if (before === after) continue;
    if (before.id !== after.id || before.role !== after.role || before.parts.length !== after.parts.length)
      return false;
    for (let p = 0; p < before.parts.length; p++) {
      if (
        partShape(before.parts[p] as Message['parts'][number]) !==
        partShape(after.parts[p] as Message['parts'][number])
      )
        return false;
    }
  }
  return true;
}

/** Why a stage's output was refused, or undefined when it is acceptable. */
function refusal(
  input: readonly Message[],
  output: readonly Message[],
  context: StrategyContext,
): string | undefined {
  // STR-8 enforced in code: every protected message must come through as the same object.
  const byId = new Map<string, Message>();
  for (const message of output) byId.set(message.id, message);
  for (const message of input) {
    if (context.protectedIds.has(message.id) && byId.get(message.id) !== message) {
      return `it changed or removed protected message ${message.id}`;
    }
  }
  // MSG-3 enforced in code: the projection must stay structurally valid for the provider.
  // The pipeline's input is valid (compact() checks it), so a structure-preserving stage is too.
  if (preservesStructure(input, output)) return undefined;
  const problems = validate(output, {
    ...(context.provider === undefined ? {} : { provider: context.provider }),
    allowPendingToolCalls: true,
    // Empty messages are the caller's to send or not; compaction never creates them.
    ignore: ['empty-message'],
  });
  const first = problems[0];
  return first === undefined
    ? undefined
    : `it produced an invalid projection (${first.kind}: ${first.message})`;
}

/**
 * Runs strategies in order (STR-7). Each stage runs only while the projection is above the
 * target; a stage that throws, breaks validity or touches a protected message is discarded
 * with a warning (the request must never fail because of a strategy). Finally the
 * projection is forced under the budget without any LLM call.
 */
export async function runPipeline(
  messages: readonly Message[],
  stages: readonly Strategy[],
  context: StrategyContext,
): Promise<PipelineRun> {
  const { counter } = context;
  const effects: StageEffect[] = [];
  const warnings: string[] = [];
  let current = messages;
  let tokens = counter.count(current).total;
  const record = (stage: string, before: number, result: StrategyResult): void => {
    const after = counter.count(result.messages).total;
    effects.push({ stage, tokensBefore: before, tokensAfter: after, ...result.effect });
    current = result.messages;
    tokens = after;
  };
  for (const stage of stages) {
    if (tokens <= context.target) break;
    let result: StrategyResult;
    try {
      result = await stage.apply(current, context);
    } catch (error) {
      if (ChatfoldError.hasCode(error, 'E_BUDGET_IMPOSSIBLE')) throw error;
      warnings.push(
        `stage ${stage.name} failed and was skipped: ${error instanceof Error ? error.message : String(error)}`,
      );
      continue;
    }
    if (result.messages === current) {
      effects.push({ stage: stage.name, tokensBefore: tokens, tokensAfter: tokens, ...result.effect });
      continue;
    }
    const reason = refusal(current, result.messages, context);
    if (reason !== undefined) {
      warnings.push(`stage ${stage.name} was discarded: ${reason}`);
      continue;
    }
    record(stage.name, tokens, result);
  }
  if (tokens > context.budget) {
    const result = fitToBudget(current, context);
    const problems = validate(result.messages, {
      ...(context.provider === undefined ? {} : { provider: context.provider }),
      allowPendingToolCalls: true,
      ignore: ['empty-message'],
    });
    if (problems.length > 0) {
      throw new ChatfoldError(
        'E_INVALID_MESSAGES',
        `the final fit produced an invalid projection: ${problems[0]?.message}`,
        {
          problems,
        },
      );
    }
    record('fit', tokens, result);
  }
  return { messages: current, stages: effects, warnings };
}

/**
 * Composes strategies into one named strategy (STR-7), e.g. a custom pipeline registered
 * beside the built-ins. The final budget fit is left to {@link runPipeline}.
 */
export function pipeline(name: string, stages: readonly Strategy[]): Strategy {
  return {
    name,
    async apply(messages, context) {
      const run = await runPipeline(messages, stages, { ...context, budget: Number.POSITIVE_INFINITY });
      const sum = (key: 'dropped' | 'stubbed' | 'summarized' | 'clipped'): number =>
        run.stages.reduce((total, effect) => total + effect[key], 0);
      return {
        messages: run.messages,
        effect: {
          dropped: sum('dropped'),
          stubbed: sum('stubbed'),
          summarized: sum('summarized'),
          clipped: sum('clipped'),
          notes: [
            ...run.stages.flatMap((effect) => effect.notes.map((note) => `${effect.stage}: ${note}`)),
            ...run.warnings,
          ],
        },
      };
    },
  };
}
