/**
 * Importer for Claude Code session transcripts (`~/.claude/projects/<project>/<session>.jsonl`
 * and `<session>/subagents/agent-*.jsonl`). Pure: takes the file's text, returns neutral
 * messages; reading the file is the caller's job.
 */
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { type AnthropicBlock, messagesFromAnthropicTurn, partFromAnthropicBlock } from './anthropic.ts';
import { describe, type NormalizeOptions, normalizeMessages } from './normalize.ts';
import { pairToolResults } from './pair-tool-results.ts';
import type { JsonValue, Message, MessageInput, Part, Usage } from './types.ts';

/** Options of {@link importClaudeCode}. */
export interface ClaudeCodeImportOptions extends NormalizeOptions {
  /**
   * Sub-agent traffic (records with `isSidechain: true`). `'auto'` (default) excludes it from a
   * file that has a main conversation and keeps it in a file that is all sub-agent (the
   * `subagents/agent-*.jsonl` transcripts); `'include'` and `'exclude'` force it.
   */
  readonly sidechains?: 'auto' | 'include' | 'exclude';
  /**
   * A line that cannot be read (not JSON, not an object, a conversation record without a
   * `message`, an unknown content block): `'error'` (default) throws `E_INVALID_FORMAT` with the
   * line number; `'skip'` skips it and counts it as `skipped['invalid-line']`.
   */
  readonly onInvalidLine?: 'error' | 'skip';
}

/** A compaction Claude Code itself made: a `system` record with `subtype: 'compact_boundary'`. */
export interface ClaudeCodeCompaction {
  /** `uuid` of the boundary record. */
  readonly boundaryId: string;
  readonly timestamp?: string;
  /** `compactMetadata.trigger`: `'auto'` or `'manual'`. */
  readonly trigger?: string;
  /** `compactMetadata.preTokens`: context size when Claude Code compacted. */
  readonly preTokens?: number;
  /** Index in `messages` of the continuation summary that follows the boundary. */
  readonly summaryIndex?: number;
  readonly summaryId?: string;
}

/** Result of {@link importClaudeCode}. */
export interface ClaudeCodeImport {
  /** The conversation in neutral form, oldest first. */
  readonly messages: Message[];
  readonly sessionId?: string;
  /** Sub-agent records seen, and whether they are in `messages`. */
  readonly sidechains: { readonly records: number; readonly included: boolean };
  readonly compactions: readonly ClaudeCodeCompaction[];
  /**
   * Records and results not turned into messages, by reason: record types (`progress`,
   * `file-history-snapshot`, `queue-operation`, `system`, …), `sidechain`,
   * `duplicate-record`, `empty`, `invalid-line`, `orphan-tool-result`, `duplicate-tool-result`.
   */
  readonly skipped: Readonly<Record<string, number>>;
  /** Tool calls that never got a result and were answered with a synthetic error result. */
  readonly syntheticResults: number;
}

type Json = { readonly [key: string]: unknown };
interface Line {
  readonly record: Json;
  readonly line: number;
}

/** User text Claude Code writes for slash commands and their local output (sent to the model). */
const COMMAND =
  /^\s*<(command-name|command-message|local-command-stdout|local-command-stderr|local-command-caveat)>/;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

function usageOf(message: Json): Usage | undefined {
  const usage = message.usage;
  if (!isObject(usage)) return undefined;
  const input = num(usage.input_tokens);
  const output = num(usage.output_tokens);
  const read = num(usage.cache_read_input_tokens);
  const write = num(usage.cache_creation_input_tokens);
  return {
    ...(input === undefined ? {} : { inputTokens: input }),
    ...(output === undefined ? {} : { outputTokens: output }),
    ...(read === undefined ? {} : { cacheReadTokens: read }),
    ...(write === undefined ? {} : { cacheWriteTokens: write }),
  };
}

function readLines(text: string, onInvalid: 'error' | 'skip', skip: (reason: string) => void): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (let number = 1; start <= text.length; number++) {
    const end = text.indexOf('\n', start);
    const raw = text.slice(start, end === -1 ? text.length : end);
    start = end === -1 ? text.length + 1 : end + 1;
    if (raw.trim() === '') continue;
    let record: unknown;
    let problem: string | undefined;
    try {
      record = JSON.parse(raw);
      if (!isObject(record)) problem = `expected a JSON object, received ${describe(record)}`;
    } catch (cause) {
      problem = `not valid JSON (${(cause as Error).message})`;
    }
    if (problem === undefined) lines.push({ record: record as Json, line: number });
    else if (onInvalid === 'skip') skip('invalid-line');
    else {
      throw new ChatfoldError(
        'E_INVALID_FORMAT',
        `line ${number}: ${problem}; expected one Claude Code record per line (JSON Lines); pass onInvalidLine: 'skip' to skip such lines`,
        { line: number },
      );
    }
  }
  return lines;
}

/**
 * Imports a Claude Code session transcript (JSON Lines) as neutral messages (MSG-1, MSG-2).
 *
 * - The records of one API response (one `message.id`, one content block each) become one
 *   assistant message, in order, even when tool results were logged between them (parallel
 *   calls); its id is the API message id, its `usage` the response's input and cache counts
 *   (the output count only when the log holds the final one — see `partialOutputTokens`).
 * - Each tool result follows the assistant message that made the call, with the tool's name.
 *   A call that never got a result (it was interrupted) is answered with a synthetic error
 *   result marked `metadata.chatfold.synthetic` — unless it belongs to the last assistant
 *   message, which may still be in flight. (Claude Code normally writes its own error result
 *   for rejected or interrupted calls; none were missing in the recorded sessions.)
 * - User records keep their `uuid` as id and `timestamp` as `createdAt`; a `user` record that
 *   holds tool results and text becomes a tool message and a user message. Records Claude
 *   Code hides in its UI but sends to the model stay, marked in `metadata.claudeCode`:
 *   `isMeta` (skill prompts, hook context, caveats) and `isCommand` (slash commands and their
 *   local output).
 * - `compact_boundary` records are reported in `compactions`; the continuation summary after
 *   one stays as a user message marked `metadata.claudeCode.isCompactSummary`. Earlier
 *   messages are kept (chatfold never loses history).
 * - `progress`, `file-history-snapshot`, `queue-operation` and other `system` records are
 *   UI or bookkeeping and are skipped (counted in `skipped`); so is the structured
 *   `toolUseResult` copy of each tool result (the model sees the `tool_result` block).
 *
 * @param jsonlText The transcript file's content.
 * @param options Sub-agent handling, invalid lines, normalization.
 * @returns Messages that pass `validate(messages, { provider: 'anthropic', allowPendingToolCalls: true })`
 *   for well-formed sessions, with what was skipped and synthesized.
 * @throws ChatfoldError `E_INVALID_FORMAT` for an unreadable line (with `details.line`).
 *
 * @example
 * const { messages, compactions } = importClaudeCode(readFileSync(path, 'utf8'));
 * assertValid(messages, { provider: 'anthropic', allowPendingToolCalls: true });
 */
export function importClaudeCode(jsonlText: string, options: ClaudeCodeImportOptions = {}): ClaudeCodeImport {
  if (typeof jsonlText !== 'string') {
    throw new ChatfoldError(
      'E_INVALID_FORMAT',
      `importClaudeCode: expected the transcript's JSONL text, received ${describe(jsonlText)}`,
      {},
    );
  }
  const { sidechains = 'auto', onInvalidLine = 'error' } = options;
  const skipped: Record<string, number> = {};
  const skip = (reason: string, count = 1): void => {
    if (count > 0) skipped[reason] = (skipped[reason] ?? 0) + count;
  };
  const lines = readLines(jsonlText, onInvalidLine, skip);

  const isTurn = (record: Json): boolean => record.type === 'user' || record.type === 'assistant';
  const includeSidechains =
    sidechains === 'include' ||
    (sidechains === 'auto' && !lines.some(({ record }) => isTurn(record) && record.isSidechain !== true));

  const out: MessageInput[] = [];
  const responseAt = new Map<string, { index: number }>();
  const seenRecords = new Set<string>();
  const compactions: { -readonly [K in keyof ClaudeCodeCompaction]: ClaudeCodeCompaction[K] }[] = [];
  let awaitingSummary: (typeof compactions)[number] | undefined;
  let sessionId: string | undefined;
  let sidechainRecords = 0;

  for (const { record, line } of lines) {
    if (record.type === 'system' && record.subtype === 'compact_boundary') {
      const meta = isObject(record.compactMetadata) ? record.compactMetadata : {};
      const trigger = str(meta.trigger);
      const preTokens = num(meta.preTokens);
      const timestamp = str(record.timestamp);
      awaitingSummary = {
        boundaryId: str(record.uuid) ?? `line-${line}`,
        ...(timestamp === undefined ? {} : { timestamp }),
        ...(trigger === undefined ? {} : { trigger }),
        ...(preTokens === undefined ? {} : { preTokens }),
      };
      compactions.push(awaitingSummary);
      continue;
    }
    if (!isTurn(record)) {
      skip(str(record.type) ?? 'unknown');
      continue;
    }
    if (record.isSidechain === true) {
      sidechainRecords++;
      if (!includeSidechains) {
        skip('sidechain');
        continue;
      }
    }
    const uuid = str(record.uuid);
    if (uuid !== undefined) {
      if (seenRecords.has(uuid)) {
        skip('duplicate-record');
        continue;
      }
      seenRecords.add(uuid);
    }
    sessionId ??= str(record.sessionId);
    try {
      const message = record.message;
      if (!isObject(message)) {
        throw new Error(
          `a ${String(record.type)} record needs a message object, received ${describe(message)}`,
        );
      }
      const createdAt = str(record.timestamp);
      if (record.type === 'assistant') {
        addResponse(out, responseAt, message, uuid, createdAt);
        continue;
      }
      const flags = userFlags(record, message);
      const turns = messagesFromAnthropicTurn('user', message.content, 'message').filter((turn) =>
        turn.parts.some((part) => part.type !== 'text' || part.text !== ''),
      );
      if (turns.length === 0) skip('empty');
      turns.forEach((turn, i) => {
        const isSummary = record.isCompactSummary === true && turn.role === 'user';
        if (isSummary && awaitingSummary !== undefined) {
          awaitingSummary.summaryIndex = out.length;
          if (uuid !== undefined) awaitingSummary.summaryId = i === 0 ? uuid : `${uuid}:${i}`;
          awaitingSummary = undefined;
        }
        const marks =
          turn.role === 'user' ? { ...flags, ...(isSummary ? { isCompactSummary: true } : {}) } : {};
        out.push({
          ...turn,
          ...(uuid === undefined ? {} : { id: i === 0 ? uuid : `${uuid}:${i}` }),
          ...(createdAt === undefined ? {} : { createdAt }),
          ...(Object.keys(marks).length > 0 ? { metadata: { claudeCode: marks } } : {}),
        });
      });
    } catch (cause) {
      if (onInvalidLine === 'skip') {
        skip('invalid-line');
        continue;
      }
      throw new ChatfoldError(
        'E_INVALID_FORMAT',
        `line ${line}: cannot read this ${String(record.type)} record: ${(cause as Error).message}`,
        { line },
        { cause },
      );
    }
  }

  // A response whose only block was empty text leaves an empty message: nothing was said.
  const spoken = out.filter((message) => message.role !== 'assistant' || message.parts.length > 0);
  skip('empty', out.length - spoken.length);
  const paired = pairToolResults(spoken);
  skip('orphan-tool-result', paired.orphans);
  skip('duplicate-tool-result', paired.duplicates);
  const messages = normalizeMessages(paired.messages, options);
  // Pairing moved messages: point each compaction at its summary's final position.
  const positions = new Map(messages.map((message, index) => [message.id, index]));
  for (const compaction of compactions) {
    const at = compaction.summaryId === undefined ? undefined : positions.get(compaction.summaryId);
    if (at === undefined) delete compaction.summaryIndex;
    else compaction.summaryIndex = at;
  }
  return {
    messages,
    ...(sessionId === undefined ? {} : { sessionId }),
    sidechains: { records: sidechainRecords, included: includeSidechains && sidechainRecords > 0 },
    compactions,
    skipped,
    syntheticResults: paired.synthetic,
  };
}

/** Markers Claude Code puts on user records, kept in `metadata.claudeCode`. */
function userFlags(record: Json, message: Json): Record<string, JsonValue> {
  const flags: Record<string, JsonValue> = {};
  if (record.isMeta === true) flags.isMeta = true;
  if (record.isVisibleInTranscriptOnly === true) flags.isVisibleInTranscriptOnly = true;
  const content = message.content;
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content) && content.length === 1 && isObject(content[0])
        ? str(content[0].text)
        : undefined;
  if (text !== undefined && COMMAND.test(text)) flags.isCommand = true;
  return flags;
}

/** Adds one assistant record's blocks to the message of its API response (one per `message.id`). */
function addResponse(
  out: MessageInput[],
  responseAt: Map<string, { index: number }>,
  message: Json,
  uuid: string | undefined,
  createdAt: string | undefined,
): void {
  const content = message.content;
  const blocks: unknown[] =
    typeof content === 'string' ? [{ type: 'text', text: content }] : (content as unknown[]);
  if (!Array.isArray(blocks)) {
    throw new Error(
      `message.content: expected a string or an array of blocks, received ${describe(content)}`,
    );
  }
  const parts: Part[] = [];
  blocks.forEach((block, i) => {
    const part = partFromAnthropicBlock(block as AnthropicBlock, `message.content[${i}]`);
    // The API rejects empty text blocks when they are sent back; they carry nothing.
    if (part.type !== 'text' || part.text !== '') parts.push(part);
  });
  const usage = usageOf(message);
  const apiId = str(message.id);
  const known = apiId === undefined ? undefined : responseAt.get(apiId);
  if (known !== undefined) {
    const previous = out[known.index] as MessageInput;
    out[known.index] = {
      ...previous,
      parts: [...previous.parts, ...parts],
      ...finalUsage(message, usage, previous),
    };
    return;
  }
  const id = apiId ?? uuid;
  if (apiId !== undefined) responseAt.set(apiId, { index: out.length });
  const model = str(message.model);
  out.push({
    ...(id === undefined ? {} : { id }),
    role: 'assistant',
    parts,
    ...(createdAt === undefined ? {} : { createdAt }),
    ...finalUsage(message, usage, { metadata: { claudeCode: model === undefined ? {} : { model } } }),
  });
}

/**
 * Usage of a response from its records. Claude Code writes each content block when it is
 * complete, with the usage known at that moment: input and cache counts are final from the
 * first block on, but `output_tokens` is final only once `stop_reason` is set (in the recorded
 * sessions it never is; a 14 kB summary is logged with 6 output tokens). A partial output
 * count goes to `metadata.claudeCode.partialOutputTokens`, never to `usage`.
 */
function finalUsage(
  message: Json,
  usage: Usage | undefined,
  previous: Pick<MessageInput, 'usage' | 'metadata'>,
): Pick<MessageInput, 'usage' | 'metadata'> {
  const { partialOutputTokens, ...marks } = (previous.metadata?.claudeCode ?? {}) as Record<
    string,
    JsonValue
  >;
  let partial = num(partialOutputTokens);
  let merged = previous.usage;
  if (usage !== undefined) {
    const { outputTokens, ...counts } = usage;
    const isFinal = typeof message.stop_reason === 'string';
    merged = { ...merged, ...counts, ...(isFinal && outputTokens !== undefined ? { outputTokens } : {}) };
    if (isFinal) partial = undefined;
    else if (outputTokens !== undefined) partial = Math.max(partial ?? 0, outputTokens);
  }
  const claudeCode = partial === undefined ? marks : { ...marks, partialOutputTokens: partial };
  return {
    ...(merged === undefined ? {} : { usage: merged }),
    ...(Object.keys(claudeCode).length > 0 ? { metadata: { ...previous.metadata, claudeCode } } : {}),
  };
}

/**
 * Converts a Claude Code session transcript (JSON Lines) to neutral messages (MSG-2): the
 * `messages` of {@link importClaudeCode}, which also reports compactions, skipped records and
 * sub-agents.
 *
 * @example
 * const messages = fromClaudeCode(readFileSync(path, 'utf8'));
 */
export function fromClaudeCode(jsonlText: string, options: ClaudeCodeImportOptions = {}): Message[] {
  return [...importClaudeCode(jsonlText, options).messages];
}
