import { DEFAULTS } from '../defaults.ts';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { contentHash } from '../messages/content-hash.ts';
import type { EngineCache } from '../messages/engine-cache.ts';
import type { JsonValue, Message, Part } from '../messages/types.ts';
import { chatfoldMetadata, formatCount, parseChatfoldMetadata } from '../projection/chatfold-metadata.ts';
import { clipMessage, clipText } from '../projection/clip-text.ts';
import { formatIdSpan } from '../projection/id-span.ts';
import type { CompactionSummary, FactLedger, PlanReplacement } from '../projection/types.ts';
import { fitLedger } from '../summarize/fit-ledger.ts';
import { EMPTY_LEDGER, extractLedger } from '../summarize/ledger.ts';
import { recentFiles } from '../summarize/recent-files.ts';
import { summarizeSpan } from '../summarize/summarize-span.ts';
import { formatLedger, formatSummaryMessage } from '../summarize/summary-message.ts';
import type { Summarizer, SummaryResult } from '../summarize/types.ts';
import type { TokenCounter } from '../tokens/types.ts';
import { shrinkCallMessage } from './mask.ts';
import { isUserTurn } from './protect.ts';
import { pendingInputStart, retentionStart } from './retention.ts';
import { stageEffect } from './stage-effect.ts';
import { groupUnits, type MessageUnit } from './tool-groups.ts';
import type { Strategy, StrategyContext, StrategyResult } from './types.ts';

/** Files whose latest content rides along with the summary by default (SUM-8). */
export const DEFAULT_RECENT_FILES = 10;

/** What happens when the LLM summarizer fails (the policy's `onFailure`, resolved per mode). */
export type SummarizerFailure = 'extractive' | 'skip' | 'error';

/** Options of the `summarize` strategy (STR-5, SUM-*); a policy sets them (see `strategyOptionsFor`). */
export interface SummarizeStrategyOptions {
  /** LLM summarizer; without one the extractive summary is used (SUM-4). */
  readonly summarizer?: Summarizer;
  /** Newest tokens kept verbatim (exact: the largest suffix within them, FR-1.3.4). */
  readonly retentionTokens?: number;
  /** Newest messages kept verbatim (exact, whole tool groups). */
  readonly retentionMessages?: number;
  /** Keep the first user message (the goal) before the summary. Default true. */
  readonly keepGoal?: boolean;
  /** Where the summary goes (the policy's `summary.placement`). Default `provider`. */
  readonly placement?: 'system' | 'user' | 'provider';
  /** Prompt variant (SUM-3). Default `'code'` when the span has tool calls, else `'general'`. */
  readonly variant?: 'general' | 'code';
  /** Extra instructions for the summarizer (SUM-3, HK-1). */
  readonly instructions?: string;
  /** Use this text as the summary instead of calling any summarizer (HK-1 `customSummary`). */
  readonly customSummary?: string;
  /** Largest summary, in tokens. Default: what the target leaves, at most 15 % of it, at least 256. */
  readonly maxSummaryTokens?: number;
  readonly timeoutMs?: number;
  /** Recent files re-injected with the summary (SUM-8). Default {@link DEFAULT_RECENT_FILES}; 0 turns it off. */
  readonly recentFiles?: number;
  /** Share of the target the re-injected files may use together. Default 0.2. */
  readonly recentFilesShare?: number;
  /** What a failed LLM summary does: fall back to the extractive one, skip the summary, or throw. Default `extractive`. */
  readonly onFailure?: SummarizerFailure;
  /**
   * The summarizer model's context window, in tokens of `summarizerCounter`: its prompt plus the
   * summary it is asked for never exceed it. The oldest messages of the span are left out of the
   * prompt first (the prompt says so; their facts stay in the ledger), the earlier summary stays.
   * Default: the compacting model's window (through a policy run), else this run's budget.
   */
  readonly summarizerWindow?: number;
  /** Counts for `summarizerWindow`: the summarizer model's tokenizer. Default: the compaction's counter. */
  readonly summarizerCounter?: TokenCounter;
}

/** The file sections that ride along with a summary, each file whole while they fit (SUM-8). */
function recentFilesSection(
  files: readonly SummaryFile[],
  allowance: number,
  context: StrategyContext,
): { text: string; files: SummaryFile[] } {
  if (files.length === 0 || allowance <= 0) return { text: '', files: [] };
  const kept: SummaryFile[] = [];
  const sections: string[] = [];
  let left = allowance;
  for (const file of files) {
    if (left <= 0) break;
    const tokens = context.counter.countText(file.content) + FILE_SECTION_OVERHEAD;
    // Never clip a file to a fraction of itself when the whole fits; cut one only when it alone
    // is larger than what is left.
    let content = file.content;
    if (tokens > left) {
      const charsPerToken = file.content.length / Math.max(1, tokens);
      content = clipText(
        file.content,
        Math.max(0, Math.floor((left - FILE_SECTION_OVERHEAD) * charsPerToken)),
        file.messageId,
      );
    }
    left -= Math.min(tokens, left);
    kept.push({ ...file, content });
    sections.push(`### ${file.path}\n\`\`\`\n${content}\n\`\`\``);
  }
  return {
    text: sections.length ? `\n\n## Latest content of recently used files\n${sections.join('\n\n')}` : '',
    files: kept,
  };
}

/** Tokens of a file section beyond the file's own (heading, fence). */
const FILE_SECTION_OVERHEAD = 12;

/** A file carried with a summary: its path, the message its content came from, the content. */
export interface SummaryFile {
  readonly path: string;
  readonly messageId: string;
  readonly content: string;
}

/**
 * The files to carry: the newest first from the span, then those an earlier summary carried
 * (so they survive later compactions), minus files whose latest content is still in the kept
 * messages (already there verbatim).
 */
function filesToCarry(
  span: readonly Message[],
  previous: readonly SummaryFile[],
  kept: readonly Message[],
  limit: number,
  cache?: EngineCache,
): SummaryFile[] {
  if (limit <= 0) return [];
  const inKept = new Set(recentFiles(kept, { limit, cache }).map((file) => file.path));
  const out: SummaryFile[] = [];
  const seen = new Set<string>();
  const add = (file: { path: string; messageId: string; content?: string | undefined }): void => {
    if (out.length >= limit || seen.has(file.path)) return;
    seen.add(file.path);
    if (file.content === undefined || inKept.has(file.path)) return;
    out.push({ path: file.path, messageId: file.messageId, content: file.content });
  };
  for (const file of recentFiles(span, { limit, cache })) add(file);
  for (const file of previous) add(file);
  return out;
}

/** The structured summary a summary message carries in `metadata.chatfold` (never parsed from text). */
export function summaryRecordOf(message: Message): CompactionSummary | undefined {
  // The cheap check first: this runs over every message of a projection.
  if (chatfoldMetadata(message)?.transform !== 'summary') return undefined;
  const record = parseChatfoldMetadata(message.metadata?.chatfold);
  if (record?.transform !== 'summary') return undefined;
  const { text, ledger, covers, source, model } = record;
  return { text, ledger, covers, source, ...(model === undefined ? {} : { model }), messageId: message.id };
}

/**
 * `summarize` (STR-5): everything between the head (system prompt, and the goal when kept)
 * and the retained tail is replaced by one summary message (with the fact ledger, SUM-4).
 * Multi-level (SUM-2): an earlier chatfold summary in that span is merged, not summarized
 * again. One summarizer request per compaction, sized to what the target leaves (SUM-6): a
 * result that is still too large is clipped to fit, with a fallback event — never asked again.
 */
export function summarize(options: SummarizeStrategyOptions = {}): Strategy {
  const window: unknown = options.summarizerWindow;
  if (window !== undefined && !(Number.isInteger(window) && (window as number) > 0)) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `summarize.summarizerWindow: expected a positive integer (tokens), received ${JSON.stringify(window) ?? typeof window}`,
      {
        option: 'summarize.summarizerWindow',
        received: typeof window === 'number' ? window : String(window),
      },
    );
  }
  const summarizerCounter: unknown = options.summarizerCounter;
  if (
    summarizerCounter !== undefined &&
    typeof (summarizerCounter as { countText?: unknown } | null)?.countText !== 'function'
  ) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      'summarize.summarizerCounter: expected a token counter (an object with countText), e.g. counterFor(tokenizer)',
      { option: 'summarize.summarizerCounter' },
    );
  }
  return {
    name: 'summarize',
    async apply(messages, context): Promise<StrategyResult> {
      const none: StrategyResult = { edits: {}, effect: stageEffect({}) };
      context.signal?.throwIfAborted();
      const units = groupUnits(messages);
      const headEnd = headEndOf(messages, units, options.keepGoal ?? true);
      let tailStart =
        context.scope === 'all'
          ? messages.length
          : retentionStartFor(messages, units, headEnd, options, context, 0);
      // The ledger rides along whole (every path and command) and protected messages inside the
      // span stay (the latest user turn of a long agent run): their tokens are reserved too, so no
      // later stage drops kept messages, and the facts in them, to make room for them. A later
      // start puts more in the span, so this settles in a few passes. The ledger is reserved once,
      // for everything after the head: an upper bound of any span's (its lists only grow with the
      // span, and are bounded), so only the protected messages are counted again per pass.
      const ledgerTokens =
        context.scope === 'all' ? 0 : ledgerTokensOf(messages, headEnd, messages.length, context);
      for (let pass = 0, reserved = 0; pass < 4 && context.scope !== 'all'; pass++) {
        const spanTokens = ledgerTokens + protectedSpanTokens(messages, units, headEnd, tailStart, context);
        if (spanTokens <= reserved) break;
        reserved = spanTokens;
        tailStart = retentionStartFor(messages, units, headEnd, options, context, reserved);
      }
      const fills =
        context.scope !== 'all' &&
        context.force !== true &&
        options.retentionTokens === undefined &&
        options.retentionMessages === undefined;
      let made = await summarizeOnce(messages, units, headEnd, tailStart, options, context);
      // Land on the target (issue 19 §1): the reservations above are upper bounds (the text's
      // whole share, the files' whole share, the ledger of everything after the head). Once the
      // summary is made its size is known: the tail takes what it left (whole units, newest
      // first) and the summary is fitted again to the shorter span — an extractive one made
      // again (no model call), a model's text kept as it is (never asked for twice, never cut
      // for this) with the span's own ledger and files — kept only when the whole still fits.
      const remake = options.summarizer === undefined && options.customSummary === undefined;
      for (let pass = 0; pass < 2 && fills && made !== undefined; pass++) {
        const tail = tokensFrom(messages, tailStart, context);
        const left =
          context.target - projectedTokens(messages, units, headEnd, tailStart, made.result, context);
        if (left <= 0) break;
        const next = retentionStart(messages, units, headEnd, { maxTokens: tail + left }, context);
        if (next >= tailStart) break;
        const longer = await summarizeOnce(
          messages,
          units,
          headEnd,
          next,
          options,
          context,
          remake ? undefined : made.made,
        );
        if (
          longer === undefined ||
          projectedTokens(messages, units, headEnd, next, longer.result, context) > context.target
        )
          break;
        tailStart = next;
        made = longer;
      }
      if (fills && made !== undefined) {
        const clipped = await withClippedBoundary(
          messages,
          units,
          headEnd,
          tailStart,
          made,
          options,
          context,
          remake,
        );
        if (clipped !== undefined) return clipped;
      }
      return made?.result ?? none;
    },
  };
}

/** What must be left of the target before the unit at the boundary is clipped to join the tail. */
const BOUNDARY_SHARE_OF_TARGET = 0.1;
/** Slack below the target worth a second clipping pass. */
const BOUNDARY_SLACK_OF_TARGET = 0.03;
/** The least a clipped message keeps (its head, its tail and the marker), in tokens. */
const MIN_CLIPPED_TOKENS = 200;

/**
 * Land on the target when the next older unit does not fit whole (issue 19 §1): a tail is whole
 * tool groups, and one group (a large read, many parallel results, a long answer) can be larger
 * than what the summary left. Its outputs and texts are then clipped head and tail in proportion
 * to their size, and its calls' large inputs shrunk when they alone leave too little (paths and
 * commands stay) — each call with its result, the originals in the store — so it joins the tail
 * instead of the summary. Only when what is left is worth it (a tenth of the target), the unit
 * holds no user turn, protected or summary message, and the whole still fits the target.
 */
async function withClippedBoundary(
  messages: readonly Message[],
  units: readonly MessageUnit[],
  headEnd: number,
  tailStart: number,
  made: { result: StrategyResult; made: SummaryResult; leftOut: number },
  options: SummarizeStrategyOptions,
  context: StrategyContext,
  remake: boolean,
): Promise<StrategyResult | undefined> {
  const left = context.target - projectedTokens(messages, units, headEnd, tailStart, made.result, context);
  if (left < context.target * BOUNDARY_SHARE_OF_TARGET) return undefined;
  // The newest unit before the tail that the summary takes (units holding a protected message
  // stay where they are anyway).
  let at = units.findIndex((candidate) => candidate.end === tailStart);
  while (at >= 0 && holdsProtected(messages, units[at] as MessageUnit, context)) at--;
  const unit = units[at];
  if (unit === undefined || unit.start < headEnd) return undefined;
  const group = messages.slice(unit.start, unit.end);
  if (
    group.some((message) => message.role === 'user' || message.role === 'system' || summaryRecordOf(message))
  )
    return undefined;
  // The shorter span's summary is smaller or the same: what is left now is a safe room.
  const sized = (list: readonly Message[]) => list.map((message) => context.counter.countMessage(message));
  let members = group;
  let tokens = sized(members);
  const floors = () =>
    members.reduce(
      (sum, message, i) => sum + Math.min(tokens[i] as number, fixedTokensOf(message, context)),
      0,
    );
  if (floors() + group.length * MIN_CLIPPED_TOKENS > left) {
    members = group.map((message) => shrinkCallMessage(message, context.cache));
    tokens = sized(members);
    if (floors() + group.length * MIN_CLIPPED_TOKENS > left) return undefined;
  }
  const total = tokens.reduce((sum, value) => sum + value, 0);
  // Clips the group to `room` and summarizes what is older: the result and where it lands.
  const attempt = async (room: number) => {
    const clippedMessages = [...messages];
    const replace: PlanReplacement[] = [];
    members.forEach((member, i) => {
      const share = Math.max(
        MIN_CLIPPED_TOKENS,
        Math.floor((room * (tokens[i] as number)) / Math.max(1, total)),
      );
      const next = clipMessage(member, share, context.counter, context.cache);
      const original = group[i] as Message;
      if (next === original) return;
      clippedMessages[unit.start + i] = next;
      replace.push({ id: original.id, message: next });
    });
    if (replace.length === 0) return undefined;
    const clipEffect = (effect: StrategyResult['effect']): StrategyResult['effect'] => ({
      ...effect,
      clipped: effect.clipped + replace.length,
      notes: [
        ...effect.notes,
        `kept the tool group before the verbatim tail with ${replace.length} message(s) clipped to fit the target`,
      ],
    });
    if (spanOf(clippedMessages, units, headEnd, unit.start, context).toSummarize.length === 0) {
      // Nothing older is left to summarize: the clipped group alone is the compaction.
      const lands = context.counter.count(clippedMessages).total;
      return lands > context.target
        ? undefined
        : { lands, result: { edits: { replace }, effect: clipEffect(stageEffect({})) } };
    }
    const longer = await summarizeOnce(
      clippedMessages,
      units,
      headEnd,
      unit.start,
      options,
      context,
      remake ? undefined : made.made,
    );
    // The group is kept only with room the summary's facts did not need: a ledger cut shorter
    // to make room for it would trade paths and commands for clipped text.
    if (longer === undefined || longer.leftOut > made.leftOut) return undefined;
    const lands = projectedTokens(clippedMessages, units, headEnd, unit.start, longer.result, context);
    if (lands > context.target) return undefined;
    const { edits, effect } = longer.result;
    return {
      lands,
      result: {
        edits: { ...edits, replace: [...(edits.replace ?? []), ...replace] },
        effect: clipEffect(effect),
      },
    };
  };
  let best = await attempt(left);
  // The summary of the shorter span is smaller, and clipping rounds down: what that left is
  // given to the group once more.
  const slack = best === undefined ? 0 : context.target - best.lands;
  if (best !== undefined && slack > context.target * BOUNDARY_SLACK_OF_TARGET) {
    const closer = await attempt(left + slack);
    if (closer !== undefined && closer.lands > best.lands) best = closer;
  }
  return best?.result;
}

/** Tokens of what clipping never cuts: a message's calls and signed reasoning. */
function fixedTokensOf(message: Message, context: StrategyContext): number {
  const kept = message.parts.filter(
    (part) => part.type === 'tool-call' || (part.type === 'reasoning' && part.signature !== undefined),
  );
  return kept.length === 0 ? 0 : context.counter.countMessage({ ...message, parts: kept });
}

/** The end of the head: leading system messages, and the goal's unit when it is kept. */
function headEndOf(messages: readonly Message[], units: readonly MessageUnit[], keepGoal: boolean): number {
  let end = 0;
  while (end < messages.length) {
    const message = messages[end] as Message;
    if (message.role !== 'system' || chatfoldMetadata(message) !== undefined) break;
    end++;
  }
  if (!keepGoal) return end;
  const goalIndex = messages.findIndex(isUserTurn);
  if (goalIndex < 0) return end;
  const unit = units.find((candidate) => candidate.start <= goalIndex && goalIndex < candidate.end);
  return Math.max(end, unit?.end ?? 0);
}

/**
 * The retained tail for this run: the policy's retention when set; otherwise as many messages
 * as the target leaves room for (after the head and the smallest summary), at least the
 * protected recent ones.
 */
function retentionStartFor(
  messages: readonly Message[],
  units: readonly MessageUnit[],
  headEnd: number,
  options: SummarizeStrategyOptions,
  context: StrategyContext,
  ledgerTokens: number,
): number {
  let headTokens = 0;
  for (let i = 0; i < headEnd; i++) headTokens += context.counter.countMessage(messages[i] as Message);
  // Room for the tail: the target less the head, the summary's share and the carried files' share.
  const summaryShare = Math.floor(context.target * SUMMARY_SHARE_OF_TARGET);
  const filesShare =
    (options.recentFiles ?? DEFAULT_RECENT_FILES) > 0
      ? Math.floor(context.target * (options.recentFilesShare ?? 0.2))
      : 0;
  const room = Math.max(
    0,
    context.target - headTokens - Math.max(MIN_SUMMARY_TOKENS, summaryShare) - filesShare - ledgerTokens,
  );
  const hasRetention = options.retentionTokens !== undefined || options.retentionMessages !== undefined;
  // The pending input is sent whatever the retention says (FR-1.5.1 "recent messages + input").
  const end = Math.max(headEnd, pendingInputStart(messages, isUserTurn));
  if (hasRetention) {
    let inputTokens = 0;
    for (let i = end; i < messages.length; i++)
      inputTokens += context.counter.countMessage(messages[i] as Message);
    return retentionStart(
      messages,
      units,
      headEnd,
      {
        maxMessages: options.retentionMessages,
        maxTokens: Math.min(
          options.retentionTokens ?? Number.POSITIVE_INFINITY,
          Math.max(0, room - inputTokens),
        ),
        end,
      },
      context,
    );
  }
  if (context.force === true) {
    // Forced below the target (a manual request, a messages trigger): keep the protected recent ones.
    let start = messages.length;
    for (
      let i = messages.length - 1;
      i >= headEnd && context.protectedIds.has((messages[i] as Message).id);
      i--
    )
      start = i;
    return Math.max(headEnd, unitStart(units, start));
  }
  return retentionStart(messages, units, headEnd, { maxTokens: room }, context);
}

/**
 * Tokens of the ledger a summary of `messages[headEnd, tailStart)` would carry (merged with
 * the latest earlier summary's); the facts are cached per message, so this is cheap to redo.
 */
function ledgerTokensOf(
  messages: readonly Message[],
  headEnd: number,
  tailStart: number,
  context: StrategyContext,
): number {
  let previous: CompactionSummary | undefined;
  const span: Message[] = [];
  for (let i = 0; i < tailStart; i++) {
    const message = messages[i] as Message;
    const record = summaryRecordOf(message);
    if (record !== undefined) previous = record;
    else if (i >= headEnd) span.push(message);
  }
  if (span.length === 0) return 0;
  const ledger = extractLedger(span, previous?.ledger, undefined, context.cache);
  return context.counter.countText(formatLedger(ledger));
}

/** Tokens of the whole units in `messages[headEnd, tailStart)` that stay because one of their messages is protected. */
function protectedSpanTokens(
  messages: readonly Message[],
  units: readonly MessageUnit[],
  headEnd: number,
  tailStart: number,
  context: StrategyContext,
): number {
  let tokens = 0;
  for (const unit of units) {
    if (unit.start < headEnd || unit.start >= tailStart || !holdsProtected(messages, unit, context)) continue;
    for (let i = unit.start; i < unit.end; i++)
      tokens += context.counter.countMessage(messages[i] as Message);
  }
  return tokens;
}

/** Whether a unit holds a protected message other than an earlier summary (it stays whole). */
function holdsProtected(messages: readonly Message[], unit: MessageUnit, context: StrategyContext): boolean {
  for (let i = unit.start; i < unit.end; i++) {
    const message = messages[i] as Message;
    if (context.protectedIds.has(message.id) && summaryRecordOf(message) === undefined) return true;
  }
  return false;
}

/** Tokens of `messages`, counted until they reach `enough` (then a lower bound of their total). */
function tokensUpTo(messages: readonly Message[], enough: number, context: StrategyContext): number {
  let tokens = 0;
  for (const message of messages) {
    tokens += context.counter.countMessage(message);
    if (tokens >= enough) break;
  }
  return tokens;
}

function unitStart(units: readonly MessageUnit[], index: number): number {
  const unit = units.find((candidate) => candidate.start <= index && index < candidate.end);
  return unit?.start ?? index;
}

/** The smallest summary the room for the retained tail is measured against. */
const MIN_SUMMARY_TOKENS = 256;
/** No summary is asked to be shorter than this. */
const MIN_SUMMARY_FLOOR = 64;
/** A summary's text is at most this share of the target. */
const SUMMARY_SHARE_OF_TARGET = 0.15;
/** A summary is at most this share of the messages it replaces. */
const SUMMARY_SHARE_OF_SPAN = 0.5;

/** Tokens of `messages[start, length)`. */
function tokensFrom(messages: readonly Message[], start: number, context: StrategyContext): number {
  let tokens = 0;
  for (let i = start; i < messages.length; i++)
    tokens += context.counter.countMessage(messages[i] as Message);
  return tokens;
}

/** Tokens of the messages a summary's result leaves: what stays, and the summary message. */
function projectedTokens(
  messages: readonly Message[],
  units: readonly MessageUnit[],
  headEnd: number,
  tailStart: number,
  result: StrategyResult,
  context: StrategyContext,
): number {
  let tokens = 0;
  for (const message of spanOf(messages, units, headEnd, tailStart, context).kept)
    tokens += context.counter.countMessage(message);
  for (const { message } of result.edits.insert ?? []) tokens += context.counter.countMessage(message);
  return tokens;
}

/** The span `messages[headEnd, tailStart)` split as a summary takes it. */
interface SpanSplit {
  /** Ids the summary removes: earlier summaries and the messages it summarizes. */
  readonly drop: string[];
  readonly toSummarize: Message[];
  /** The latest earlier summary (merged, SUM-2) and the files it carried. */
  readonly previous: CompactionSummary | undefined;
  readonly previousFiles: readonly SummaryFile[];
  /** Everything that stays: the head (but earlier summaries), protected units in the span, the tail. */
  readonly kept: Message[];
  readonly keptInSpan: ReadonlySet<string>;
}

function spanOf(
  messages: readonly Message[],
  units: readonly MessageUnit[],
  headEnd: number,
  tailStart: number,
  context: StrategyContext,
): SpanSplit {
  const drop: string[] = [];
  const toSummarize: Message[] = [];
  let previous: CompactionSummary | undefined;
  let previousFiles: readonly SummaryFile[] = [];
  // A protected message keeps its whole tool group: a call never loses its result (MSG-3).
  const keptInSpan = new Set<string>();
  for (const unit of units) {
    if (unit.start < headEnd || unit.start >= tailStart || !holdsProtected(messages, unit, context)) continue;
    for (let i = unit.start; i < unit.end; i++) keptInSpan.add((messages[i] as Message).id);
  }
  // An earlier summary in the head (a system summary sits before a kept goal) is merged too:
  // one summary, covering everything summarized so far (SUM-2).
  const headSummaries = new Set<string>();
  for (let i = 0; i < headEnd; i++) {
    const message = messages[i] as Message;
    const record = summaryRecordOf(message);
    if (record === undefined) continue;
    previous = record;
    previousFiles = summaryFilesOf(message);
    drop.push(message.id);
    headSummaries.add(message.id);
  }
  for (let i = headEnd; i < tailStart; i++) {
    const message = messages[i] as Message;
    const record = summaryRecordOf(message);
    if (record !== undefined) {
      previous = record;
      previousFiles = summaryFilesOf(message);
      drop.push(message.id);
    } else if (keptInSpan.has(message.id)) {
      // Pinned inside the span (with its tool group): stays, after the summary.
    } else {
      toSummarize.push(message);
      drop.push(message.id);
    }
  }
  const kept = messages.filter(
    (message, index) =>
      (index < headEnd && !headSummaries.has(message.id)) || index >= tailStart || keptInSpan.has(message.id),
  );
  return { drop, toSummarize, previous, previousFiles, kept, keptInSpan };
}

/** The recent files a summary of `toSummarize` carries (SUM-8), within their share of the target. */
function carriedFilesOf(
  toSummarize: readonly Message[],
  previousFiles: readonly SummaryFile[],
  tail: readonly Message[],
  options: SummarizeStrategyOptions,
  context: StrategyContext,
): { text: string; files: SummaryFile[] } {
  return recentFilesSection(
    filesToCarry(
      toSummarize,
      previousFiles,
      tail,
      options.recentFiles ?? DEFAULT_RECENT_FILES,
      context.cache,
    ),
    Math.floor(context.target * (options.recentFilesShare ?? 0.2)),
    context,
  );
}

/**
 * One summary of `messages[headEnd, tailStart)` and the edits that put it in place. With
 * `reuse`, the text of a summary already made for a longer span is fitted to this one (its own
 * ledger and files; nothing is asked, nothing reported): undefined when it would need cutting.
 */
async function summarizeOnce(
  messages: readonly Message[],
  units: readonly MessageUnit[],
  headEnd: number,
  tailStart: number,
  options: SummarizeStrategyOptions,
  context: StrategyContext,
  reuse?: SummaryResult,
): Promise<{ result: StrategyResult; made: SummaryResult; leftOut: number } | undefined> {
  const { drop, toSummarize, previous, previousFiles, kept } = spanOf(
    messages,
    units,
    headEnd,
    tailStart,
    context,
  );
  if (toSummarize.length === 0) return undefined;
  const keptTokens = kept.reduce((sum, message) => sum + context.counter.countMessage(message), 0);
  const files = carriedFilesOf(toSummarize, previousFiles, messages.slice(tailStart), options, context);
  const filesTokens = files.text === '' ? 0 : context.counter.countText(files.text);
  // One request, sized to what the target leaves after the kept messages and the files.
  const room = Math.max(0, context.target - keptTokens - filesTokens - SUMMARY_MESSAGE_OVERHEAD);
  // A summary is at most half of what it replaces (it must compress), 15 % of the target and the room left.
  // Only as far as it can matter: past twice the larger of the floor and the other limits, the
  // span's half no longer bounds anything (a long span is not counted message by message).
  const spanTokens = tokensUpTo(
    toSummarize,
    2 * Math.max(MIN_SUMMARY_TOKENS, Math.min(room, Math.floor(context.target * SUMMARY_SHARE_OF_TARGET))),
    context,
  );
  const maxTokens =
    options.maxSummaryTokens ??
    Math.max(
      // Never ask for less than a useful summary (256 tokens, or half a short span): when the
      // kept messages leave less, the final fit makes room, not the summary.
      Math.min(
        MIN_SUMMARY_TOKENS,
        Math.max(MIN_SUMMARY_FLOOR, Math.floor(spanTokens * SUMMARY_SHARE_OF_SPAN)),
      ),
      Math.min(
        room,
        Math.floor(context.target * SUMMARY_SHARE_OF_TARGET),
        Math.floor(spanTokens * SUMMARY_SHARE_OF_SPAN),
      ),
    );
  const goal =
    messages.slice(0, headEnd).find(isUserTurn) ??
    (options.keepGoal === false ? undefined : messages.find(isUserTurn));
  const result: SummaryResult =
    reuse === undefined
      ? await summarizeSpan({
          messages: toSummarize,
          ...(previous === undefined
            ? {}
            : { previousSummary: { text: previous.text, ledger: previous.ledger } }),
          ...(goal === undefined ? {} : { goal: textOf(goal.parts) }),
          ...(options.summarizer === undefined ? {} : { summarizer: options.summarizer }),
          ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
          ...(options.customSummary === undefined ? {} : { customSummary: options.customSummary }),
          variant: options.variant ?? (toSummarize.some((m) => m.role === 'tool') ? 'code' : 'general'),
          maxTokens,
          timeoutMs: options.timeoutMs ?? DEFAULTS.summaryTimeoutMs,
          counter: context.counter,
          summarizerWindow: options.summarizerWindow ?? context.budget + context.reservedTokens,
          ...(options.summarizerCounter === undefined
            ? {}
            : { summarizerCounter: options.summarizerCounter }),
          ...(context.cache === undefined ? {} : { cache: context.cache }),
          ...(context.signal === undefined ? {} : { signal: context.signal }),
          ...(context.onProgress === undefined ? {} : { onDelta: context.onProgress }),
        })
      : { ...reuse, ledger: extractLedger(toSummarize, previous?.ledger, undefined, context.cache) };
  const notes: string[] = [];
  if (result.fallbackReason !== undefined) {
    const onFailure = options.onFailure ?? 'extractive';
    if (onFailure === 'error') {
      throw new ChatfoldError('E_SUMMARY_FAILED', `the summary could not be made: ${result.fallbackReason}`, {
        reason: result.fallbackReason,
      });
    }
    // A reused summary's fallback was said when it was made; the note stays with the stage.
    if (reuse === undefined)
      context.onFallback?.({
        source: 'summarizer',
        stage: 'summarize',
        fallback: onFailure === 'skip' ? 'skipped' : 'extractive',
        reason: result.fallbackReason,
      });
    if (onFailure === 'skip') return undefined;
    notes.push(`summarizer fell back to extractive: ${result.fallbackReason}`);
  }
  let text = result.text;
  // The whole summary message (text, ledger, files) must leave the prompt within the target:
  // the oldest carried files give way first, then the text is clipped.
  const messagesSummarized = (previous?.covers.count ?? 0) + toSummarize.length;
  const first = (previous === undefined ? toSummarize[0] : undefined) as Message | undefined;
  const last = toSummarize.at(-1) as Message;
  const covers = {
    firstId: previous?.covers.firstId ?? (first as Message).id,
    lastId: last.id,
    count: messagesSummarized,
  };
  const ids = formatIdSpan(covers.firstId, covers.lastId);
  let ledger = result.ledger;
  let frameTokens = context.counter.countText(
    formatSummaryMessage({ text: '', ledger, messagesSummarized, ids }),
  );
  let carried = files;
  while (
    carried.files.length > 0 &&
    keptTokens + frameTokens + context.counter.countText(text) + context.counter.countText(carried.text) >
      context.target
  ) {
    carried = recentFilesSection(carried.files.slice(0, -1), Number.POSITIVE_INFINITY, context);
  }
  const carriedTokens = carried.text === '' ? 0 : context.counter.countText(carried.text);
  const textTokens = context.counter.countText(text);
  // Then the ledger: it is merged into every later summary, so in a small window it would grow
  // until the final fit clipped the summary. It keeps what the target leaves after the kept
  // messages, the files and the text asked for, or half the target when they leave less, and
  // never pushes the prompt over the budget itself (kept messages already over it are clipped
  // by the final fit, largest first); the oldest facts of the least needed kinds go first.
  const headerTokens = context.counter.countText(
    formatSummaryMessage({ text: '', ledger: EMPTY_LEDGER, messagesSummarized, ids }),
  );
  const others = keptTokens + carriedTokens + Math.min(textTokens, maxTokens) + headerTokens;
  const share = Math.max(context.target - others, Math.floor(context.target * LEDGER_SHARE_OF_TARGET));
  const ledgerRoom = Math.max(
    MIN_LEDGER_TOKENS,
    context.budget > others ? Math.min(share, context.budget - others) : share,
  );
  if (frameTokens - headerTokens > ledgerRoom) {
    ledger = fitLedger(result.ledger, ledgerRoom, (value) => context.counter.countText(value));
    frameTokens = context.counter.countText(
      formatSummaryMessage({ text: '', ledger, messagesSummarized, ids }),
    );
    notes.push(
      `the fact ledger kept its newest facts (${formatCount(ledgerSize(result.ledger) - ledgerSize(ledger))} older ones left out) to stay within the target`,
    );
  }
  // An explicit size (the policy's `summary.maxTokens`) is a cap; otherwise what the target leaves is.
  const left = context.target - keptTokens - frameTokens - carriedTokens;
  // The size asked for is never cut; beyond it, what the target leaves (the files gave way first).
  const limit = options.maxSummaryTokens ?? Math.max(maxTokens, Math.min(room, left));
  if (textTokens > limit && result.source !== 'custom') {
    // A text fitted to a shorter span is never cut for it: that span is not taken.
    if (reuse !== undefined) return undefined;
    const charsPerToken = text.length / Math.max(1, textTokens);
    const original = text;
    // The clip marker costs tokens too: cut again by what is still over (a few passes at most).
    for (let keep = Math.floor(limit * charsPerToken), pass = 0; pass < 4; pass++) {
      text = clipText(original, Math.max(0, keep), 'the summary');
      const over = context.counter.countText(text) - limit;
      if (over <= 0) break;
      keep -= Math.ceil(over * charsPerToken);
    }
    // The model's answer was cut: say so. (An extractive summary is simply made to measure.)
    if (result.source === 'llm')
      context.onFallback?.({
        source: 'summarizer',
        stage: 'summarize',
        fallback: 'clipped',
        reason: `the summary was ${formatCount(textTokens)} tokens, more than the ${formatCount(limit)} the target leaves; it was clipped`,
      });
  }
  const id = `cf_summary_${contentHash(`${covers.firstId}..${covers.lastId}:${covers.count}:${text}`)}`;
  const summary: CompactionSummary = {
    text,
    ledger,
    covers,
    source: result.source,
    ...(result.model === undefined ? {} : { model: result.model }),
    messageId: id,
  };
  const { messageId: _, ...record } = summary;
  const placement = options.placement ?? 'provider';
  const role =
    placement === 'system'
      ? 'system'
      : placement === 'user'
        ? 'user'
        : context.provider === 'openai'
          ? 'system'
          : 'user';
  const summaryMessage: Message = {
    id,
    // SUM-7: where the policy places it; `provider`: a system message for OpenAI, a user turn elsewhere.
    role,
    parts: [
      {
        type: 'text',
        text:
          formatSummaryMessage({
            text,
            ledger,
            messagesSummarized: covers.count,
            ids,
          }) + carried.text,
      },
    ],
    createdAt: last.createdAt,
    metadata: {
      chatfold: {
        version: 1,
        transform: 'summary',
        ...(record as unknown as Record<string, JsonValue>),
        ...(carried.files.length === 0 ? {} : { files: carried.files as unknown as JsonValue }),
      },
    },
  };
  // A system summary goes first (after the system prompt, before a kept goal).
  const beforeId =
    role === 'system'
      ? (messages[leadingSystemEnd(messages)]?.id ?? null)
      : (messages[headEnd] as Message).id;
  notes.unshift(`summarized ${formatCount(toSummarize.length)} message(s) (${result.source})`);
  return {
    result: {
      edits: { drop, insert: [{ beforeId, message: summaryMessage }], summary },
      effect: stageEffect({ summarized: toSummarize.length, notes }),
    },
    made: result,
    leftOut: ledgerSize(result.ledger) - ledgerSize(ledger),
  };
}

/** The fewest tokens a summary's fact ledger is cut to (its newest paths and commands). */
const MIN_LEDGER_TOKENS = 128;
/** The share of the target a ledger may take when the kept messages leave it less. */
const LEDGER_SHARE_OF_TARGET = 0.5;

/** How many facts a ledger lists. */
function ledgerSize(ledger: FactLedger): number {
  let size = 0;
  for (const [key, value] of Object.entries(ledger))
    if (key !== 'leftOut' && Array.isArray(value)) size += value.length;
  return size;
}

/** Tokens of the summary message beyond its text (header, footer, role). */
const SUMMARY_MESSAGE_OVERHEAD = 24;

/** Index of the first message after the leading system prompt(s). */
function leadingSystemEnd(messages: readonly Message[]): number {
  let end = 0;
  while (end < messages.length) {
    const message = messages[end] as Message;
    if (message.role !== 'system' || chatfoldMetadata(message) !== undefined) break;
    end++;
  }
  return end;
}

/** The files an earlier summary carried (its `metadata.chatfold.files`). */
function summaryFilesOf(message: Message): readonly SummaryFile[] {
  const files = (chatfoldMetadata(message) as { files?: unknown } | undefined)?.files;
  if (!Array.isArray(files)) return [];
  return files.filter(
    (file): file is SummaryFile =>
      typeof file === 'object' &&
      file !== null &&
      typeof (file as SummaryFile).path === 'string' &&
      typeof (file as SummaryFile).messageId === 'string' &&
      typeof (file as SummaryFile).content === 'string',
  );
}

function textOf(parts: readonly Part[]): string {
  return parts.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}
