import { ChatfoldError } from '../errors/chatfold-error.ts';
import { checkMessageList, withCallerObjects } from './check-messages.ts';
import { describe } from './normalize.ts';
import {
  type ContentItem,
  contentOf,
  hasOpaqueItems,
  isEmptyContent,
  withContent,
} from './prune-messages-content.ts';
import { isArray } from './snapshot.ts';
import type { Message, Part } from './types.ts';

/** Which messages lose something: all, all but the last one, all but the last N, or none. */
export type PruneScope = 'all' | 'before-last-message' | `before-last-${number}-messages`;

/** A `toolCalls` rule: prune the tool content of these tools (all tools when `tools` is absent). */
export interface ToolCallPruning {
  readonly type: PruneScope;
  readonly tools?: readonly string[];
}

/** Options of {@link pruneMessages}: the Vercel AI SDK's, over neutral messages. */
export interface PruneMessagesOptions {
  readonly messages: readonly Message[];
  /** Remove reasoning from assistant messages: `'all'`, `'before-last-message'` or `'none'` (default). */
  readonly reasoning?: 'all' | 'before-last-message' | 'none';
  /**
   * Remove tool calls, results and approvals: a scope for every tool, `'none'`, or a list of
   * per-tool rules applied in order. Default `[]` (nothing).
   */
  readonly toolCalls?: PruneScope | 'none' | readonly ToolCallPruning[];
  /** Drop messages left without content (default `'remove'`) or keep them. */
  readonly emptyMessages?: 'keep' | 'remove';
}

const invalid = (option: string, message: string): ChatfoldError =>
  new ChatfoldError('E_INVALID_OPTIONS', `pruneMessages: ${message}`, { option });

const SCOPE = /^before-last-(\d+)-messages$/;

/** How many trailing messages a scope keeps: undefined for `'all'`, 0 counts as `'all'`. */
function keptTail(scope: unknown, option: string): number | undefined {
  if (scope === 'all') return undefined;
  if (scope === 'before-last-message') return 1;
  const match = typeof scope === 'string' ? SCOPE.exec(scope) : null;
  if (match === null) {
    throw invalid(
      option,
      `${option}: expected 'all', 'before-last-message' or 'before-last-N-messages', received ${typeof scope === 'string' ? JSON.stringify(scope) : describe(scope)}`,
    );
  }
  const count = Number(match[1]);
  return count === 0 ? undefined : count; // the AI SDK prunes everything when keeping 0
}

function rulesOf(toolCalls: unknown): { keep: number | undefined; tools: readonly string[] | undefined }[] {
  if (toolCalls === 'none') return [];
  if (typeof toolCalls === 'string') return [{ keep: keptTail(toolCalls, 'toolCalls'), tools: undefined }];
  if (!Array.isArray(toolCalls)) {
    throw invalid(
      'toolCalls',
      `toolCalls: expected a scope, 'none' or a list of rules, received ${describe(toolCalls)}`,
    );
  }
  return toolCalls.map((rule: unknown, i) => {
    const where = `toolCalls[${i}]`;
    if (typeof rule !== 'object' || rule === null) {
      throw invalid('toolCalls', `${where}: expected { type, tools? }, received ${describe(rule)}`);
    }
    const { type, tools } = rule as { type?: unknown; tools?: unknown };
    if (tools !== undefined && !(Array.isArray(tools) && tools.every((name) => typeof name === 'string'))) {
      throw invalid(
        'toolCalls',
        `${where}.tools: expected an array of tool names, received ${describe(tools)}`,
      );
    }
    return { keep: keptTail(type, `${where}.type`), tools: tools as readonly string[] | undefined };
  });
}

const isReasoning = (item: ContentItem) => item.type === 'reasoning' || item.type === 'reasoning-file';
/** What a message holds, as bits (AI SDK items in metadata count as both kinds of content). */
const ASSISTANT = 1;
const TOOL = 2;
const REASONING = 4;
const TOOL_PARTS = 8;
const isToolItem = (item: ContentItem) =>
  item.type === 'tool-call' ||
  item.type === 'tool-result' ||
  item.type === 'tool-approval-request' ||
  item.type === 'tool-approval-response';

/**
 * Reasoning that leads into content which was all pruned goes too: a run of reasoning items
 * belongs to what follows it (an OpenAI reasoning item without its following item is rejected).
 */
function dropOrphanReasoning(items: readonly ContentItem[], keep: Uint8Array): void {
  for (let start = 0; start < items.length; start++) {
    if (!isReasoning(items[start] as ContentItem)) continue;
    let end = start + 1;
    while (end < items.length && isReasoning(items[end] as ContentItem)) end++;
    let next = end;
    let hasFollowing = false;
    let keepsFollowing = false;
    for (; next < items.length && !isReasoning(items[next] as ContentItem); next++) {
      hasFollowing = true;
      keepsFollowing ||= keep[next] === 1;
    }
    if (hasFollowing && !keepsFollowing) keep.fill(0, start, end);
    start = next - 1;
  }
}

/**
 * Prunes reasoning, tool content and empty messages with the options and semantics of the Vercel
 * AI SDK's `pruneMessages` (STR-9; behaviour of `ai` 7.0.173), over neutral messages:
 * - `reasoning`: removes reasoning parts of assistant messages (all, or all but the last message's);
 * - `toolCalls`: removes tool calls, results and approvals outside the last N messages, for every
 *   tool or per tool. Calls whose results (or approvals) are in the kept tail stay, so no result
 *   is ever left without its call; reasoning that led only into pruned content goes with it;
 * - `emptyMessages`: drops messages left without content (the default) or keeps them.
 *
 * Tool approvals and other AI SDK parts that `fromAiSdk` carries in metadata are pruned like the
 * SDK prunes them. A result's tool is its call's name when the call is in the list (the AI SDK
 * reads the result's own `toolName`, which may be absent in neutral messages or, in broken
 * histories, differ). Messages that lose nothing are the caller's objects; the input is not mutated
 * (and read once: the pruned messages are made from a checked copy of it).
 *
 * @param options The messages (oldest first) and what to prune.
 * @returns The pruned messages.
 * @throws ChatfoldError `E_INVALID_MESSAGES` when `messages` is not an array, `E_INVALID_OPTIONS`
 *   for an unknown option value (e.g. `'before-last-two-messages'`).
 * @example
 * const history = pruneMessages({ messages, reasoning: 'before-last-message', toolCalls: 'before-last-2-messages' });
 */
export function pruneMessages({
  messages: input,
  reasoning = 'none',
  toolCalls = [],
  emptyMessages = 'remove',
}: PruneMessagesOptions): Message[] {
  if (!isArray(input)) {
    throw new ChatfoldError(
      'E_INVALID_MESSAGES',
      `pruneMessages: expected { messages: Message[] }, received messages: ${describe(input)}`,
      {},
    );
  }
  const list = checkMessageList(input, 'pruneMessages');
  const { messages } = list;
  if (reasoning !== 'all' && reasoning !== 'before-last-message' && reasoning !== 'none') {
    throw invalid(
      'reasoning',
      `reasoning: expected 'all', 'before-last-message' or 'none', received ${JSON.stringify(reasoning)}`,
    );
  }
  if (emptyMessages !== 'keep' && emptyMessages !== 'remove') {
    throw invalid(
      'emptyMessages',
      `emptyMessages: expected 'keep' or 'remove', received ${JSON.stringify(emptyMessages)}`,
    );
  }
  const rules = rulesOf(toolCalls);
  const count = messages.length;
  // Content items are made only for messages that pruning looks into (assistant and tool
  // messages; the others are only asked whether they are empty).
  const contents: (ContentItem[] | undefined)[] = new Array(count);
  const itemsOf = (index: number): ContentItem[] =>
    (contents[index] ??= contentOf(messages[index] as Message));
  const changed = new Uint8Array(count);
  // One message's keep flags at a time (allocating a typed array per message cost more than
  // the pruning itself).
  let flags = new Uint8Array(16);
  const keepFlags = (length: number): Uint8Array => {
    if (flags.length < length) flags = new Uint8Array(length * 2);
    return flags.fill(1, 0, length);
  };
  // What each message holds, read once: pruning skips a message with nothing it could remove.
  const kinds = new Uint8Array(count);
  for (let index = 0; index < count; index++) {
    const message = messages[index] as Message;
    const { role, parts } = message;
    if (role !== 'assistant' && role !== 'tool') continue;
    let kind = role === 'assistant' ? ASSISTANT : TOOL;
    if (message.providerMetadata !== undefined && hasOpaqueItems(message)) kind |= REASONING | TOOL_PARTS;
    for (let i = 0; i < parts.length; i++) {
      const type = (parts[i] as Part).type;
      if (type === 'reasoning') kind |= REASONING;
      else if (type === 'tool-call' || type === 'tool-result') kind |= TOOL_PARTS;
    }
    kinds[index] = kind;
  }
  /** Keeps the items of message `index` that `keep` marks (some item is unmarked). */
  const filter = (index: number, items: readonly ContentItem[], keep: Uint8Array) => {
    const kept: ContentItem[] = [];
    for (let i = 0; i < items.length; i++) if (keep[i] === 1) kept.push(items[i] as ContentItem);
    contents[index] = kept;
    changed[index] = 1;
  };

  if (reasoning !== 'none') {
    const last = reasoning === 'before-last-message' ? count - 1 : count;
    for (let index = 0; index < last; index++) {
      const kind = kinds[index] as number;
      if ((kind & ASSISTANT) === 0 || (kind & REASONING) === 0) continue;
      const items = itemsOf(index);
      if (!items.some(isReasoning)) continue;
      const keep = keepFlags(items.length);
      for (let i = 0; i < items.length; i++) if (isReasoning(items[i] as ContentItem)) keep[i] = 0;
      filter(index, items, keep);
    }
  }

  for (const rule of rules) {
    const tailStart = rule.keep === undefined ? count : Math.max(0, count - rule.keep);
    const keptCalls = new Set<string>();
    const keptApprovals = new Set<string>();
    // What the kept tail keeps: its calls, results and approvals.
    for (let index = tailStart; index < count; index++) {
      if (((kinds[index] as number) & TOOL_PARTS) === 0) continue;
      for (const { type, toolCallId, approvalId } of itemsOf(index)) {
        if (toolCallId !== undefined && (type === 'tool-call' || type === 'tool-result')) {
          keptCalls.add(toolCallId);
        } else if (approvalId !== undefined && type.startsWith('tool-approval-')) {
          keptApprovals.add(approvalId);
        }
      }
    }
    // Tool names (for per-tool rules) and the calls approvals ask about (for kept approvals),
    // from the whole list: only when a rule names tools or the tail keeps an approval.
    const callNames = new Map<string, string>();
    const resultNames = new Map<string, string>();
    const approvalCalls = new Map<string, string>();
    if (rule.tools !== undefined || keptApprovals.size > 0) {
      for (let index = 0; index < count; index++) {
        if (((kinds[index] as number) & TOOL_PARTS) === 0) continue;
        for (const { type, toolCallId, toolName, approvalId } of itemsOf(index)) {
          if (toolCallId !== undefined && toolName !== undefined) {
            if (type === 'tool-call') callNames.set(toolCallId, toolName);
            else if (type === 'tool-result') resultNames.set(toolCallId, toolName);
          }
          if (type === 'tool-approval-request' && approvalId !== undefined && toolCallId !== undefined) {
            approvalCalls.set(approvalId, toolCallId);
          }
        }
      }
    }
    // A kept approval keeps the call it asks about.
    for (const approval of keptApprovals) {
      const call = approvalCalls.get(approval);
      if (call !== undefined) keptCalls.add(call);
    }
    // A call's name wins over a result's, so a call and its result always go together.
    const nameOf = (call: string | undefined) =>
      call === undefined ? undefined : (callNames.get(call) ?? resultNames.get(call));
    const toolOf = (item: ContentItem): string | undefined =>
      item.type === 'tool-call' || item.type === 'tool-result'
        ? (nameOf(item.toolCallId) ?? item.toolName)
        : nameOf(item.approvalId === undefined ? undefined : approvalCalls.get(item.approvalId));
    const keepItem = (item: ContentItem): boolean => {
      if (!isToolItem(item)) return true;
      if (item.type === 'tool-call' || item.type === 'tool-result') {
        if (item.toolCallId !== undefined && keptCalls.has(item.toolCallId)) return true;
      } else if (item.approvalId !== undefined && keptApprovals.has(item.approvalId)) return true;
      if (rule.tools === undefined) return false;
      const tool = toolOf(item);
      return tool !== undefined && !rule.tools.includes(tool);
    };
    for (let index = 0; index < tailStart; index++) {
      const kind = kinds[index] as number;
      // Without tool parts or AI SDK items in metadata a message has no tool content to prune.
      if ((kind & TOOL_PARTS) === 0) continue;
      const items = itemsOf(index);
      let keep: Uint8Array | undefined;
      for (let i = 0; i < items.length; i++) {
        if (keepItem(items[i] as ContentItem)) continue;
        keep ??= keepFlags(items.length);
        keep[i] = 0;
      }
      // Nothing pruned here: no reasoning can be left leading into pruned content either.
      if (keep === undefined) continue;
      if ((kind & ASSISTANT) !== 0) dropOrphanReasoning(items, keep);
      filter(index, items, keep);
    }
  }

  const out: Message[] = [];
  for (let index = 0; index < count; index++) {
    const message = messages[index] as Message;
    if (changed[index] === 1) {
      const items = contents[index] as ContentItem[];
      const pruned = withContent(message, items);
      if (emptyMessages === 'remove' && isEmptyContent(pruned, items)) continue;
      out.push(pruned);
      continue;
    }
    // Unchanged: parts are items, so a message with parts has content (string content aside).
    if (emptyMessages === 'remove' && message.parts.length <= 1 && isEmptyContent(message, itemsOf(index)))
      continue;
    out.push(message);
  }
  // Messages that were checked copies already (a converter's or a session's) are the caller's.
  let isCallerList = true;
  for (let index = 0; index < count && isCallerList; index++)
    isCallerList = messages[index] === list.inputs[index];
  return isCallerList ? out : withCallerObjects(out, list);
}
