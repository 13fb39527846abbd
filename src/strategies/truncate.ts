import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { Message } from '../messages/types.ts';
import { chatfoldMetadata, createSyntheticMessage, formatCount } from './chatfold-metadata.ts';
import { clipMessage } from './clip.ts';
import { stageEffect } from './stage-effect.ts';
import { groupUnits, type MessageUnit } from './tool-groups.ts';
import type { Strategy, StrategyContext, StrategyResult } from './types.ts';

/** Text of the marker that stands where messages were left out (STR-3). */
export function omissionText(count: number): string {
  return `[chatfold: ${formatCount(count)} earlier message${count === 1 ? '' : 's'} omitted here to fit the context window; they are kept in the history]`;
}

/** How many stored messages a projection message stands for (markers stand for several). */
function omittedCount(message: Message): number {
  const record = chatfoldMetadata(message);
  return record?.transform === 'marker' && typeof record.omitted === 'number' ? record.omitted : 1;
}

/**
 * Drops whole units (tool groups stay atomic) for which `drop` says yes, replacing each run
 * of dropped units by one omission marker. Pure; returns the new list and how many messages
 * left it.
 */
export function dropUnits(
  messages: readonly Message[],
  units: readonly MessageUnit[],
  dropped: ReadonlySet<number>,
): { messages: Message[]; dropped: number } {
  const out: Message[] = [];
  let run: Message[] = [];
  let droppedMessages = 0;
  const flush = (): void => {
    if (run.length === 0) return;
    const omitted = run.reduce((sum, message) => sum + omittedCount(message), 0);
    const first = run[0] as Message;
    out.push(
      createSyntheticMessage({
        role: 'user',
        text: omissionText(omitted),
        key: `${first.id}..${(run.at(-1) as Message).id}:${omitted}`,
        createdAt: first.createdAt,
        record: { transform: 'marker', omitted, firstId: first.id, lastId: (run.at(-1) as Message).id },
      }),
    );
    run = [];
  };
  units.forEach((unit, u) => {
    const isDropped = dropped.has(u);
    for (let i = unit.start; i < unit.end; i++) {
      const message = messages[i] as Message;
      if (isDropped) {
        run.push(message);
        if (chatfoldMetadata(message)?.transform !== 'marker') droppedMessages++;
      } else {
        flush();
        out.push(message);
      }
    }
  });
  flush();
  return { messages: out, dropped: droppedMessages };
}

/** Whether any message of the unit is protected, or is a summary (kept until the final fit). */
function isUnitKept(messages: readonly Message[], unit: MessageUnit, context: StrategyContext): boolean {
  for (let i = unit.start; i < unit.end; i++) {
    const message = messages[i] as Message;
    if (context.protectedIds.has(message.id) || chatfoldMetadata(message)?.transform === 'summary')
      return true;
  }
  return false;
}

/**
 * Drops the oldest unprotected units until the projection is at or below `limit`.
 * Markers are counted: after building, the result is measured and more is dropped if needed.
 */
export function truncateTo(
  messages: readonly Message[],
  limit: number,
  context: StrategyContext,
): StrategyResult {
  const { counter } = context;
  const units = groupUnits(messages);
  const unitTokens = units.map((unit) => {
    let sum = 0;
    for (let i = unit.start; i < unit.end; i++) sum += counter.countMessage(messages[i] as Message);
    return sum;
  });
  const markerCost = counter.countMessage(
    createSyntheticMessage({
      role: 'user',
      text: omissionText(99_999),
      key: '',
      createdAt: '',
      record: { transform: 'marker' },
    }),
  );
  let total = counter.count(messages).total;
  if (total <= limit) return { messages, effect: stageEffect({}) };
  const dropped = new Set<number>();
  const candidates: number[] = [];
  units.forEach((unit, u) => {
    if (!isUnitKept(messages, unit, context)) candidates.push(u);
  });
  let next = 0;
  let result = { messages: [...messages], dropped: 0 };
  // Usually one pass: the marker cost is reserved up front; extra passes only when gaps multiply.
  for (let pass = 0; pass < 8; pass++) {
    while (next < candidates.length && total + markerCost > limit) {
      const u = candidates[next++] as number;
      dropped.add(u);
      total -= unitTokens[u] as number;
    }
    result = dropUnits(messages, units, dropped);
    total = counter.count(result.messages).total;
    if (total <= limit || next >= candidates.length) break;
  }
  return {
    messages: result.messages,
    effect: stageEffect({
      dropped: result.dropped,
      notes: result.dropped ? [`omitted ${result.dropped} older message(s)`] : [],
    }),
  };
}

/**
 * The guaranteed last step (STR-7, "always fit"): truncate to the budget, then clip protected
 * messages other than the system prompt, largest first. Throws `E_BUDGET_IMPOSSIBLE` when
 * even that cannot fit (e.g. the system prompt alone exceeds the budget).
 */
export function fitToBudget(messages: readonly Message[], context: StrategyContext): StrategyResult {
  const truncated = truncateTo(messages, context.budget, context);
  const { counter, budget } = context;
  const out = [...truncated.messages];
  let total = counter.count(out).total;
  if (total <= budget) return truncated;
  let clipped = 0;
  const order = out
    .map((message, index) => ({ index, tokens: counter.countMessage(message), message }))
    .filter(({ message }) => message.role !== 'system' || chatfoldMetadata(message) !== undefined)
    .sort((a, b) => b.tokens - a.tokens || a.index - b.index);
  for (const { index, tokens, message } of order) {
    if (total <= budget) break;
    const allowed = Math.max(16, tokens - (total - budget));
    const next = clipMessage(message, allowed, counter);
    if (next === message) continue;
    out[index] = next;
    total += counter.countMessage(next) - tokens;
    clipped++;
  }
  total = counter.count(out).total;
  if (total > budget) {
    const fixed = out
      .filter((message) => message.role === 'system')
      .reduce((sum, m) => sum + counter.countMessage(m), 0);
    throw new ChatfoldError(
      'E_BUDGET_IMPOSSIBLE',
      `cannot fit the conversation into ${formatCount(budget)} tokens: after dropping and clipping everything allowed, ${formatCount(total)} remain (system prompt ${formatCount(fixed)}); shorten the system prompt or tool definitions, or use a model with a larger window`,
      { budget, actual: total, systemTokens: fixed },
    );
  }
  return {
    messages: out,
    effect: {
      ...truncated.effect,
      clipped,
      notes: [...truncated.effect.notes, `clipped ${clipped} protected message(s) to fit the budget`],
    },
  };
}

/** Options of {@link truncate}. */
export interface TruncateOptions {
  /** Also bring the projection down to the target (default) rather than only the budget. */
  readonly to?: 'target' | 'budget';
}

/**
 * `truncate` (STR-3): keeps the system prompt, the goal and the newest messages up to the
 * target, with a marker "[N earlier messages omitted]"; tool groups are atomic.
 */
export function truncate({ to = 'target' }: TruncateOptions = {}): Strategy {
  return {
    name: 'truncate',
    apply(messages, context) {
      return truncateTo(messages, to === 'target' ? context.target : context.budget, context);
    },
  };
}
