import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { Message, TextPart } from '../messages/types.ts';
import { chatfoldMetadata, createSyntheticMessage, formatCount } from '../projection/chatfold-metadata.ts';
import { clipMessage } from '../projection/clip-text.ts';
import { applyEdits } from '../projection/edits.ts';
import { formatIdSpan } from '../projection/id-span.ts';
import type { PlanInsertion, PlanReplacement } from '../projection/types.ts';
import { isUserTurn } from './protect.ts';
import { retentionStart } from './retention.ts';
import { stageEffect } from './stage-effect.ts';
import { groupUnits, type MessageUnit } from './tool-groups.ts';
import type { Strategy, StrategyContext, StrategyEdits, StrategyResult } from './types.ts';

/**
 * Text of the marker that stands where messages were left out (STR-3); it names their ids
 * (`first..last`, issue 21) so the model can ask for them back with `chatfold_recall`. A
 * template gets `{count}` and `{ids}` replaced.
 */
export function omissionText(count: number, template?: string, ids = ''): string {
  if (template !== undefined)
    return template.replaceAll('{count}', formatCount(count)).replaceAll('{ids}', ids);
  return `[chatfold: ${formatCount(count)} earlier message${count === 1 ? '' : 's'} omitted here to fit the context window; they are kept in the history${ids === '' ? '' : ` (ids ${ids})`}]`;
}

/**
 * The marker's parts: its text and, when a template does not place `{ids}` itself (a preset
 * that reproduces a document's exact wording), the ids in a second text part.
 */
function omissionParts(count: number, template: string | undefined, ids: string): TextPart[] {
  const text: TextPart = { type: 'text', text: omissionText(count, template, ids) };
  if (template === undefined || template.includes('{ids}')) return [text];
  return [text, { type: 'text', text: `[ids ${ids}: chatfold_recall returns them]` }];
}

/** The first and last stored message a run stands for (an earlier marker inside it names its own). */
function runIds(run: readonly Message[]): string {
  const first = run[0] as Message;
  const last = run.at(-1) as Message;
  const firstRecord = chatfoldMetadata(first);
  const lastRecord = chatfoldMetadata(last);
  const firstId =
    firstRecord?.transform === 'marker' && typeof firstRecord.firstId === 'string'
      ? firstRecord.firstId
      : first.id;
  const lastId =
    lastRecord?.transform === 'marker' && typeof lastRecord.lastId === 'string' ? lastRecord.lastId : last.id;
  return formatIdSpan(firstId, lastId);
}

/** How {@link dropUnits} marks what it left out. */
export interface OmissionOptions {
  /** The marker text, `{count}` replaced (the policy's `omissionMarker`). Default: chatfold's wording. */
  readonly template?: string | undefined;
  /**
   * `runs` (default): one marker per run of consecutive dropped units, where they were;
   * `single`: one marker for everything dropped, where the first dropped unit was (scattered
   * drops, as `importance` makes, must not add a marker each).
   */
  readonly markers?: 'runs' | 'single';
}

/** How many stored messages a projection message stands for (markers stand for several). */
function omittedCount(message: Message): number {
  const record = chatfoldMetadata(message);
  return record?.transform === 'marker' && typeof record.omitted === 'number' ? record.omitted : 1;
}

/**
 * Drops whole units (tool groups stay atomic) for which `dropped` says yes, replacing each run
 * of dropped units by one omission marker (an earlier marker inside the run is merged into it).
 * Pure; returns the edits and how many messages left the projection.
 */
export function dropUnits(
  messages: readonly Message[],
  units: readonly MessageUnit[],
  dropped: ReadonlySet<number>,
  { template, markers = 'runs' }: OmissionOptions = {},
): { edits: StrategyEdits; dropped: number } {
  const drop: string[] = [];
  const insert: PlanInsertion[] = [];
  let run: Message[] = [];
  let droppedMessages = 0;
  const flush = (): void => {
    if (run.length === 0) return;
    const omitted = run.reduce((sum, message) => sum + omittedCount(message), 0);
    const first = run[0] as Message;
    const last = run.at(-1) as Message;
    insert.push({
      beforeId: first.id,
      message: createSyntheticMessage({
        role: 'user',
        parts: omissionParts(omitted, template, runIds(run)),
        key: `${first.id}..${last.id}:${omitted}`,
        createdAt: first.createdAt,
        record: { transform: 'marker', omitted, firstId: first.id, lastId: last.id },
      }),
    });
    run = [];
  };
  units.forEach((unit, u) => {
    const isDropped = dropped.has(u);
    for (let i = unit.start; i < unit.end; i++) {
      const message = messages[i] as Message;
      if (isDropped) {
        run.push(message);
        drop.push(message.id);
        if (chatfoldMetadata(message)?.transform !== 'marker') droppedMessages++;
      } else if (markers === 'runs') {
        flush();
      }
    }
  });
  flush();
  return { edits: { drop, insert }, dropped: droppedMessages };
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
  {
    template,
    retainFrom,
  }: {
    /** The marker text (`{count}` replaced); default chatfold's wording. */
    readonly template?: string | undefined;
    /** Drop every unprotected unit before this index first (the policy's retention), then go on to `limit`. */
    readonly retainFrom?: number | undefined;
  } = {},
): StrategyResult & { readonly messages: readonly Message[] } {
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
      text: omissionText(99_999, template),
      key: '',
      createdAt: '',
      record: { transform: 'marker' },
    }),
  );
  let total = counter.count(messages).total;
  const hasOlder =
    retainFrom !== undefined &&
    units.some((unit) => unit.end <= retainFrom && !isUnitKept(messages, unit, context));
  if (total <= limit && !hasOlder) return { messages, edits: {}, effect: stageEffect({}) };
  const dropped = new Set<number>();
  const candidates: number[] = [];
  units.forEach((unit, u) => {
    if (!isUnitKept(messages, unit, context)) candidates.push(u);
  });
  let next = 0;
  // The retention first: every unprotected unit older than the retained tail goes.
  while (
    retainFrom !== undefined &&
    next < candidates.length &&
    (units[candidates[next] as number] as MessageUnit).end <= retainFrom
  ) {
    const u = candidates[next++] as number;
    dropped.add(u);
    total -= unitTokens[u] as number;
  }
  let result: { edits: StrategyEdits; dropped: number } = { edits: {}, dropped: 0 };
  let output: readonly Message[] = messages;
  // Usually one pass: the marker cost is reserved up front; extra passes only when gaps multiply.
  for (let pass = 0; pass < 8; pass++) {
    while (next < candidates.length && total + markerCost > limit) {
      const u = candidates[next++] as number;
      dropped.add(u);
      total -= unitTokens[u] as number;
    }
    result = dropUnits(messages, units, dropped, { template });
    output = applyEdits(messages, result.edits);
    total = counter.count(output).total;
    if (total <= limit || next >= candidates.length) break;
  }
  return {
    messages: output,
    edits: result.edits,
    effect: stageEffect({
      dropped: result.dropped,
      notes: result.dropped ? [`omitted ${formatCount(result.dropped)} older message(s)`] : [],
    }),
  };
}

/** Tokens of what is left after the fit gave up, by why it is there (for E_BUDGET_IMPOSSIBLE). */
function remainingByCause(messages: readonly Message[], context: StrategyContext) {
  const { counter } = context;
  let lastUser = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (isUserTurn(messages[i] as Message)) {
      lastUser = i;
      break;
    }
  }
  const causes = { systemPrompt: 0, latestTurn: 0, protected: 0, summary: 0, other: 0 };
  messages.forEach((message, index) => {
    const tokens = counter.countMessage(message);
    const record = chatfoldMetadata(message);
    if (message.role === 'system' && record === undefined) causes.systemPrompt += tokens;
    else if (record?.transform === 'summary') causes.summary += tokens;
    else if (lastUser >= 0 && index >= lastUser) causes.latestTurn += tokens;
    else if (context.protectedIds.has(message.id)) causes.protected += tokens;
    else causes.other += tokens;
  });
  return causes;
}

/**
 * The guaranteed last step (STR-7, "always fit"): truncate to the budget, then clip every
 * message except the system prompt, largest first. Throws `E_BUDGET_IMPOSSIBLE` only when
 * even that cannot fit, naming what is left (system prompt, latest turn, pinned or exempt
 * messages) with numbers.
 */
export function fitToBudget(messages: readonly Message[], context: StrategyContext): StrategyResult {
  const truncated = truncateTo(messages, context.budget, context);
  const { counter, budget } = context;
  const out = [...truncated.messages];
  let total = counter.count(out).total;
  if (total <= budget) return truncated;
  const inputIds = new Set(messages.map((message) => message.id));
  const originals = new Map<number, Message>();
  const replaced = new Map<string, Message>();
  // Clipping adds markers, so a message clipped to exactly the excess can still be a little
  // over: later passes clip the largest again from its original, with growing slack.
  for (let pass = 0; pass < 6 && total > budget; pass++) {
    const order = out
      .map((message, index) => ({ index, tokens: counter.countMessage(message), message }))
      // Only messages of the input can be replaced (a marker this step inserted is short anyway).
      .filter(({ message }) => inputIds.has(message.id))
      .filter(({ message }) => message.role !== 'system' || chatfoldMetadata(message) !== undefined)
      .sort((a, b) => b.tokens - a.tokens || a.index - b.index);
    let changed = false;
    for (const { index, tokens, message } of order) {
      if (total <= budget) break;
      const original = originals.get(index) ?? message;
      const slack = pass === 0 ? 0 : 16 * 2 ** pass;
      const allowed = Math.max(16, tokens - (total - budget) - slack);
      const next = clipMessage(original, allowed, counter, context.cache);
      if (next === original || counter.countMessage(next) >= tokens) continue;
      originals.set(index, original);
      out[index] = next;
      replaced.set(original.id, next);
      total += counter.countMessage(next) - tokens;
      changed = true;
    }
    total = counter.count(out).total;
    if (!changed) break;
  }
  const replace: PlanReplacement[] = [...replaced].map(([id, message]) => ({ id, message }));
  total = counter.count(out).total;
  if (total > budget) {
    const causes = remainingByCause(out, context);
    const parts = [
      `system prompt ${formatCount(causes.systemPrompt)}`,
      `latest turn ${formatCount(causes.latestTurn)}`,
      ...(causes.protected > 0 ? [`pinned or exempt messages ${formatCount(causes.protected)}`] : []),
      ...(causes.summary > 0 ? [`summary ${formatCount(causes.summary)}`] : []),
      ...(causes.other > 0 ? [`other messages ${formatCount(causes.other)}`] : []),
      ...(context.reservedTokens > 0
        ? [`tool definitions ${formatCount(context.reservedTokens)} (outside the budget)`]
        : []),
    ];
    throw new ChatfoldError(
      'E_BUDGET_IMPOSSIBLE',
      `cannot fit the conversation into ${formatCount(budget)} tokens: after dropping and clipping everything allowed, ${formatCount(total)} remain (${parts.join(', ')}); shorten the system prompt, tool definitions or the latest message, or use a model with a larger window`,
      { budget, actual: total, ...causes, toolTokens: context.reservedTokens },
    );
  }
  return {
    edits: { ...truncated.edits, replace },
    effect: {
      ...truncated.effect,
      clipped: replace.length,
      notes: [...truncated.effect.notes, `clipped ${replace.length} message(s) to fit the budget`],
    },
  };
}

/** Options of {@link truncate}. */
export interface TruncateOptions {
  /** Also bring the projection down to the target (default) rather than only the budget. */
  readonly to?: 'target' | 'budget';
  /** Keep at most this many newest messages (whole tool groups); older ones go first (the policy's retention). */
  readonly retentionMessages?: number;
  /** Keep at most this many newest tokens (whole tool groups); older ones go first. */
  readonly retentionTokens?: number;
  /**
   * Marker text where messages were left out; `{count}` and `{ids}` (`first..last`) are
   * replaced. Without `{ids}`, the ids follow in a second text part. Default chatfold's wording.
   */
  readonly marker?: string;
}

/**
 * `truncate` (STR-3): keeps the system prompt, the goal (when protected) and the newest
 * messages — the retained tail when a retention is set, then as many as the target allows —
 * with one marker "[N earlier messages omitted]" where the rest was; tool groups are atomic.
 */
export function truncate({
  to = 'target',
  retentionMessages,
  retentionTokens,
  marker,
}: TruncateOptions = {}): Strategy {
  return {
    name: 'truncate',
    apply(messages, context) {
      const hasRetention = retentionMessages !== undefined || retentionTokens !== undefined;
      const retainFrom = hasRetention
        ? retentionStart(
            messages,
            groupUnits(messages),
            0,
            { maxMessages: retentionMessages, maxTokens: retentionTokens },
            context,
          )
        : undefined;
      const { edits, effect } = truncateTo(
        messages,
        to === 'target' ? context.target : context.budget,
        context,
        {
          template: marker,
          retainFrom,
        },
      );
      return { edits, effect };
    },
  };
}
