import { applyEdits } from '../compaction/edits.ts';
import type { CompactionSummary } from '../compaction/types.ts';
import { DEFAULTS } from '../defaults.ts';
import { contentHash } from '../messages/content-hash.ts';
import type { JsonValue, Message, Part } from '../messages/types.ts';
import { EMPTY_LEDGER } from '../summarize/ledger.ts';
import { recentFiles } from '../summarize/recent-files.ts';
import { summarizeSpan } from '../summarize/summarize-span.ts';
import { formatSummaryMessage } from '../summarize/summary-message.ts';
import type { Summarizer } from '../summarize/types.ts';
import { chatfoldMetadata, formatCount } from './chatfold-metadata.ts';
import { clipText } from './clip.ts';
import { isUserTurn } from './protect.ts';
import { stageEffect } from './stage-effect.ts';
import { groupUnits, type MessageUnit } from './tool-groups.ts';
import type { Strategy, StrategyContext, StrategyResult } from './types.ts';

/** Files whose latest content rides along with the summary (SUM-8, seed 000). */
export const DEFAULT_RECENT_FILES = 10;
/** The verbatim tail after a summary may use at most this share of the target. */
export const RETAINED_SHARE_OF_TARGET = 0.5;

/** Options of the `summarize` strategy (STR-5, SUM-*). */
export interface SummarizeStrategyOptions {
  /** LLM summarizer; without one the extractive summary is used (SUM-4). */
  readonly summarizer?: Summarizer;
  /** Newest tokens kept verbatim. Default `DEFAULTS.retentionTokens`. */
  readonly retentionTokens?: number;
  /** Newest messages kept verbatim. Default `DEFAULTS.retentionMessages`. */
  readonly retentionMessages?: number;
  /** Prompt variant (SUM-3). Default `'code'` when the span has tool calls, else `'general'`. */
  readonly variant?: 'general' | 'code';
  /** Extra instructions for the summarizer (SUM-3, HK-1). */
  readonly instructions?: string;
  /** Use this text as the summary instead of calling any summarizer (HK-1 `customSummary`). */
  readonly customSummary?: string;
  /** Largest summary, in tokens. Default: 15 % of the target, at least 256. */
  readonly maxSummaryTokens?: number;
  readonly timeoutMs?: number;
  /** Recent files re-injected with the summary (SUM-8). Default {@link DEFAULT_RECENT_FILES}; 0 turns it off. */
  readonly recentFiles?: number;
  /** Token cap of the re-injected file contents. Default: 20 % of the target. */
  readonly recentFilesTokens?: number;
}

/** Where the retained tail starts: enough messages and tokens, whole units, never before `floor`. */
function retentionStart(
  messages: readonly Message[],
  units: readonly MessageUnit[],
  floorIndex: number,
  minMessages: number,
  minTokens: number,
  maxTokens: number,
  context: StrategyContext,
): number {
  let start = messages.length;
  let tokens = 0;
  for (let u = units.length - 1; u >= 0; u--) {
    const unit = units[u] as MessageUnit;
    if (unit.start < floorIndex) break;
    if (messages.length - start >= minMessages && tokens >= minTokens) break;
    let unitTokens = 0;
    for (let i = unit.start; i < unit.end; i++)
      unitTokens += context.counter.countMessage(messages[i] as Message);
    // SUM-1 minimums, but the retained tail never takes more than its share of the target.
    if (start < messages.length && tokens + unitTokens > maxTokens) break;
    tokens += unitTokens;
    start = unit.start;
  }
  return start;
}

/** The text of the latest full content of recently touched files, token-capped (SUM-8). */
function recentFilesSection(
  span: readonly Message[],
  limit: number,
  maxTokens: number,
  context: StrategyContext,
): string {
  if (limit <= 0 || maxTokens <= 0) return '';
  const files = recentFiles(span, { limit });
  const sections: string[] = [];
  let budget = maxTokens;
  for (const file of files) {
    if (file.content === undefined || budget <= 0) continue;
    const perFile = Math.floor(budget / Math.max(1, files.length - sections.length));
    const tokens = context.counter.countText(file.content);
    const charsPerToken = file.content.length / Math.max(1, tokens);
    const text =
      tokens <= perFile
        ? file.content
        : clipText(file.content, Math.floor(perFile * charsPerToken), file.messageId);
    budget -= Math.min(tokens, perFile);
    sections.push(`### ${file.path}\n\`\`\`\n${text}\n\`\`\``);
  }
  return sections.length ? `\n\n## Latest content of recently used files\n${sections.join('\n\n')}` : '';
}

/** The structured summary a summary message carries in `metadata.chatfold` (never parsed from text). */
export function summaryRecordOf(message: Message): CompactionSummary | undefined {
  const record = chatfoldMetadata(message);
  if (record?.transform !== 'summary') return undefined;
  const { text, ledger, covers, source, model } = record as unknown as Partial<CompactionSummary>;
  if (typeof text !== 'string' || typeof covers !== 'object' || covers === null) return undefined;
  return {
    text,
    ledger: ledger ?? EMPTY_LEDGER,
    covers,
    source: source ?? 'custom',
    ...(typeof model === 'string' ? { model } : {}),
    messageId: message.id,
  };
}

/**
 * `summarize` (STR-5): everything between the goal and the retained tail is replaced by one
 * summary message (with the fact ledger, SUM-4). Multi-level (SUM-2): an earlier chatfold
 * summary in that span is merged, not summarized again. If the result is still above the
 * target, retention shrinks and the summary is made shorter (SUM-6).
 */
export function summarize(options: SummarizeStrategyOptions = {}): Strategy {
  return {
    name: 'summarize',
    async apply(messages, context): Promise<StrategyResult> {
      const none: StrategyResult = { edits: {}, effect: stageEffect({}) };
      const units = groupUnits(messages);
      const goalIndex = messages.findIndex(isUserTurn);
      // The head is everything up to and including the goal's unit (system prompt, goal).
      const headEnd =
        goalIndex < 0 ? 0 : (units.find((unit) => unit.start <= goalIndex && goalIndex < unit.end)?.end ?? 0);
      let retentionMessages = options.retentionMessages ?? DEFAULTS.retentionMessages;
      let retentionTokens = options.retentionTokens ?? DEFAULTS.retentionTokens;
      let maxSummaryTokens = options.maxSummaryTokens ?? Math.max(256, Math.floor(context.target * 0.15));
      const notes: string[] = [];
      let best: StrategyResult = none;
      for (let attempt = 0; attempt < 3; attempt++) {
        context.signal?.throwIfAborted();
        const tailStart = retentionStart(
          messages,
          units,
          headEnd,
          retentionMessages,
          retentionTokens,
          Math.floor(context.target * RETAINED_SHARE_OF_TARGET),
          context,
        );
        const result = await summarizeOnce(messages, headEnd, tailStart, maxSummaryTokens, options, context);
        if (result === undefined) break;
        best = result;
        if (context.counter.count(applyEdits(messages, result.edits)).total <= context.target) break;
        notes.push(
          `summary + retained messages still above the target after attempt ${attempt + 1}; shrinking retention and the summary`,
        );
        retentionMessages = Math.max(1, Math.floor(retentionMessages / 2));
        retentionTokens = Math.floor(retentionTokens / 2);
        maxSummaryTokens = Math.max(128, Math.floor(maxSummaryTokens / 2));
      }
      if (best === none) return none;
      return { edits: best.edits, effect: { ...best.effect, notes: [...best.effect.notes, ...notes] } };
    },
  };
}

async function summarizeOnce(
  messages: readonly Message[],
  headEnd: number,
  tailStart: number,
  maxTokens: number,
  options: SummarizeStrategyOptions,
  context: StrategyContext,
): Promise<StrategyResult | undefined> {
  const span = messages.slice(headEnd, tailStart);
  const drop: string[] = [];
  const toSummarize: Message[] = [];
  let previous: CompactionSummary | undefined;
  for (const message of span) {
    const record = summaryRecordOf(message);
    if (record !== undefined) {
      previous = record;
      drop.push(message.id);
    } else if (context.protectedIds.has(message.id)) {
      // Pinned inside the span: stays, after the summary.
    } else {
      toSummarize.push(message);
      drop.push(message.id);
    }
  }
  if (toSummarize.length === 0) return undefined;
  const goal = messages.slice(0, headEnd).find(isUserTurn);
  const result = await summarizeSpan({
    messages: toSummarize,
    ...(previous === undefined ? {} : { previousSummary: { text: previous.text, ledger: previous.ledger } }),
    ...(goal === undefined ? {} : { goal: textOf(goal.parts) }),
    ...(options.summarizer === undefined ? {} : { summarizer: options.summarizer }),
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    ...(options.customSummary === undefined ? {} : { customSummary: options.customSummary }),
    variant: options.variant ?? (toSummarize.some((m) => m.role === 'tool') ? 'code' : 'general'),
    maxTokens,
    timeoutMs: options.timeoutMs ?? DEFAULTS.summaryTimeoutMs,
    counter: context.counter,
    ...(context.signal === undefined ? {} : { signal: context.signal }),
    ...(context.onProgress === undefined ? {} : { onDelta: context.onProgress }),
  });
  if (result.fallbackReason !== undefined) {
    context.onFallback?.({
      source: 'summarizer',
      stage: 'summarize',
      fallback: 'extractive',
      reason: result.fallbackReason,
    });
  }
  const first = (previous === undefined ? toSummarize[0] : undefined) as Message | undefined;
  const last = toSummarize.at(-1) as Message;
  const covers = {
    firstId: previous?.covers.firstId ?? (first as Message).id,
    lastId: last.id,
    count: (previous?.covers.count ?? 0) + toSummarize.length,
  };
  const files = recentFilesSection(
    toSummarize,
    options.recentFiles ?? DEFAULT_RECENT_FILES,
    options.recentFilesTokens ?? Math.floor(context.target * 0.2),
    context,
  );
  const id = `cf_summary_${contentHash(`${covers.firstId}..${covers.lastId}:${covers.count}:${result.text}`)}`;
  const summary: CompactionSummary = {
    text: result.text,
    ledger: result.ledger,
    covers,
    source: result.source,
    ...(result.model === undefined ? {} : { model: result.model }),
    messageId: id,
  };
  const { messageId: _, ...record } = summary;
  const summaryMessage: Message = {
    id,
    // SUM-7: a system message for OpenAI; a user turn for Anthropic, Gemini and neutral use.
    role: context.provider === 'openai' ? 'system' : 'user',
    parts: [
      {
        type: 'text',
        text:
          formatSummaryMessage({
            text: result.text,
            ledger: result.ledger,
            messagesSummarized: covers.count,
          }) + files,
      },
    ],
    createdAt: last.createdAt,
    metadata: { chatfold: { transform: 'summary', ...(record as unknown as Record<string, JsonValue>) } },
  };
  const notes = [`summarized ${formatCount(toSummarize.length)} message(s) (${result.source})`];
  if (result.fallbackReason !== undefined)
    notes.push(`summarizer fell back to extractive: ${result.fallbackReason}`);
  return {
    edits: { drop, insert: [{ beforeId: (span[0] as Message).id, message: summaryMessage }], summary },
    effect: stageEffect({ summarized: toSummarize.length, notes }),
  };
}

function textOf(parts: readonly Part[]): string {
  return parts.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}
