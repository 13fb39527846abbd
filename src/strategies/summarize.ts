import type { Message, Part } from '../messages/types.ts';
import { recentFiles } from '../summarize/recent-files.ts';
import { summarizeSpan } from '../summarize/summarize-span.ts';
import { formatSummaryMessage, parseSummaryMessage } from '../summarize/summary-message.ts';
import type { FactLedger, Summarizer } from '../summarize/types.ts';
import { chatfoldMetadata, createSyntheticMessage, formatCount } from './chatfold-metadata.ts';
import { clipText } from './clip.ts';
import { isUserTurn } from './protect.ts';
import { stageEffect } from './stage-effect.ts';
import { groupUnits, type MessageUnit } from './tool-groups.ts';
import type { Strategy, StrategyContext, StrategyResult } from './types.ts';

/** Newest tokens kept verbatim after a summary (SUM-1, seed 001). */
export const DEFAULT_RETENTION_TOKENS = 1000;
/** Newest messages kept verbatim after a summary (SUM-1, seed 004). */
export const DEFAULT_RETENTION_MESSAGES = 6;
/** Files whose latest content rides along with the summary (SUM-8, seed 000). */
export const DEFAULT_RECENT_FILES = 10;
/** The verbatim tail after a summary may use at most this share of the target. */
export const RETAINED_SHARE_OF_TARGET = 0.5;
/** Default timeout of one summarizer call. */
export const DEFAULT_SUMMARY_TIMEOUT_MS = 60_000;

/** Options of the `summarize` strategy (STR-5, SUM-*). */
export interface SummarizeStrategyOptions {
  /** LLM summarizer; without one the extractive summary is used (SUM-4). */
  readonly summarizer?: Summarizer;
  /** Newest tokens kept verbatim. Default {@link DEFAULT_RETENTION_TOKENS}. */
  readonly retentionTokens?: number;
  /** Newest messages kept verbatim. Default {@link DEFAULT_RETENTION_MESSAGES}. */
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
      const none: StrategyResult = {
        messages,
        effect: stageEffect({}),
      };
      const units = groupUnits(messages);
      const goalIndex = messages.findIndex(isUserTurn);
      // The head is everything up to and including the goal's unit (system prompt, goal).
      const headEnd =
        goalIndex < 0 ? 0 : (units.find((unit) => unit.start <= goalIndex && goalIndex < unit.end)?.end ?? 0);
      let retentionMessages = options.retentionMessages ?? DEFAULT_RETENTION_MESSAGES;
      let retentionTokens = options.retentionTokens ?? DEFAULT_RETENTION_TOKENS;
      let maxSummaryTokens = options.maxSummaryTokens ?? Math.max(256, Math.floor(context.target * 0.15));
      const warnings: string[] = [];
      let best: StrategyResult = none;
      for (let attempt = 0; attempt < 3; attempt++) {
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
        if (context.counter.count(result.messages).total <= context.target) break;
        warnings.push(
          `summary + retained messages still above the target after attempt ${attempt + 1}; shrinking retention and the summary`,
        );
        retentionMessages = Math.max(1, Math.floor(retentionMessages / 2));
        retentionTokens = Math.floor(retentionTokens / 2);
        maxSummaryTokens = Math.max(128, Math.floor(maxSummaryTokens / 2));
      }
      if (best === none) return none;
      return {
        messages: best.messages,
        effect: { ...best.effect, notes: [...best.effect.notes, ...warnings] },
      };
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
  const kept: Message[] = [];
  const toSummarize: Message[] = [];
  let previous: { text: string; ledger: FactLedger } | undefined;
  let previouslySummarized = 0;
  for (const message of span) {
    const record = chatfoldMetadata(message);
    if (record?.transform === 'summary') {
      const part = message.parts[0];
      const parsed = part?.type === 'text' ? parseSummaryMessage(part.text) : undefined;
      if (parsed !== undefined) previous = parsed;
      previouslySummarized += typeof record.summarized === 'number' ? record.summarized : 0;
    } else if (context.protectedIds.has(message.id)) {
      kept.push(message);
    } else {
      toSummarize.push(message);
    }
  }
  if (toSummarize.length === 0) return undefined;
  const goal = messages.slice(0, headEnd).find(isUserTurn);
  const result = await summarizeSpan({
    messages: toSummarize,
    ...(previous === undefined ? {} : { previousSummary: previous }),
    ...(goal === undefined ? {} : { goal: textOf(goal.parts) }),
    ...(options.summarizer === undefined ? {} : { summarizer: options.summarizer }),
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    ...(options.customSummary === undefined ? {} : { customSummary: options.customSummary }),
    variant: options.variant ?? (toSummarize.some((m) => m.role === 'tool') ? 'code' : 'general'),
    maxTokens,
    timeoutMs: options.timeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS,
    counter: context.counter,
  });
  const summarized = previouslySummarized + toSummarize.length;
  const files = recentFilesSection(
    toSummarize,
    options.recentFiles ?? DEFAULT_RECENT_FILES,
    options.recentFilesTokens ?? Math.floor(context.target * 0.2),
    context,
  );
  const first = toSummarize[0] as Message;
  const last = toSummarize.at(-1) as Message;
  const summaryMessage = createSyntheticMessage({
    // SUM-7: a system message for OpenAI; a user turn for Anthropic, Gemini and neutral use.
    role: context.provider === 'openai' ? 'system' : 'user',
    text:
      formatSummaryMessage({ text: result.text, ledger: result.ledger, messagesSummarized: summarized }) +
      files,
    key: `${first.id}..${last.id}:${summarized}:${result.text}`,
    createdAt: last.createdAt,
    record: { transform: 'summary', summarized, source: result.source, firstId: first.id, lastId: last.id },
  });
  const out = [...messages.slice(0, headEnd), summaryMessage, ...kept, ...messages.slice(tailStart)];
  const notes = [`summarized ${formatCount(toSummarize.length)} message(s) (${result.source})`];
  if (result.fallbackReason !== undefined)
    notes.push(`summarizer fell back to extractive: ${result.fallbackReason}`);
  return {
    messages: out,
    effect: stageEffect({ summarized: toSummarize.length, notes }),
  };
}

function textOf(parts: readonly Part[]): string {
  return parts.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}
