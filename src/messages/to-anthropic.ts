import { ChatfoldError } from '../errors/chatfold-error.ts';
import {
  type AttachmentContext,
  attachmentAsText,
  attachmentToBlock,
  type UnsupportedAttachments,
  withExtra,
} from './anthropic-attachment.ts';
import { type AnthropicApi, carriedToolResultBlock, carriedTurnBlock } from './anthropic-carried-blocks.ts';
import type {
  AnthropicBetaBlock,
  AnthropicBetaRequest,
  AnthropicMessage,
  AnthropicRequest,
  AnthropicTextBlock,
  AnthropicToolResultBlock,
} from './anthropic-request.ts';
import { assertMessages } from './check-messages.ts';
import { reasoningOption, type ToProviderOptions } from './converter-options.ts';
import { describe } from './normalize.ts';
import { markersOf, objectMarker, opaqueItems, restoreOpaque } from './provider-metadata.ts';
import { parseToolArguments } from './tool-arguments.ts';
import type { JsonValue, Message, Part, ProviderMetadata } from './types.ts';

const P = 'anthropic';
const VISIBLE = /\S/;

/** Options of {@link toAnthropic}. */
export interface ToAnthropicOptions extends ToProviderOptions {
  /**
   * The API the request is for: `'messages'` (default, `client.messages.create`) or `'beta'`
   * (`client.beta.messages.create`), which also takes the MCP connector's `mcp_tool_use` /
   * `mcp_tool_result` blocks.
   */
  readonly api?: AnthropicApi;
  /** Default {@link DEFAULT_TO_ANTHROPIC_OPTIONS}`.unsupportedAttachments`; see {@link UnsupportedAttachments}. */
  readonly unsupportedAttachments?: UnsupportedAttachments;
}

/** Defaults of {@link ToAnthropicOptions} (`reasoning` defaults as for every converter). */
export const DEFAULT_TO_ANTHROPIC_OPTIONS = {
  api: 'messages',
  unsupportedAttachments: 'placeholder',
} as const satisfies ToAnthropicOptions;

/** A literal option of `toAnthropic`, checked (`E_INVALID_OPTIONS` naming it). */
function choice<K extends 'api' | 'unsupportedAttachments'>(
  options: ToAnthropicOptions,
  key: K,
  allowed: readonly NonNullable<ToAnthropicOptions[K]>[],
): NonNullable<ToAnthropicOptions[K]> {
  const value = options[key] ?? DEFAULT_TO_ANTHROPIC_OPTIONS[key];
  if (!allowed.includes(value)) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `toAnthropic: options.${key} must be one of ${allowed.map((v) => `'${v}'`).join(', ')}, received ${typeof value === 'string' ? JSON.stringify(value) : describe(value)}`,
      { converter: 'toAnthropic', option: key },
    );
  }
  return value;
}

/**
 * True for a block list Anthropic would refuse as empty: nothing, or only whitespace text
 * ("all messages must have non-empty content", "text content blocks must contain
 * non-whitespace text"). Whitespace text beside real content is accepted (Claude writes it).
 */
const isBlank = (blocks: readonly { readonly type: string; readonly text?: unknown }[]): boolean =>
  blocks.every(
    (block) => block.type === 'text' && typeof block.text === 'string' && !VISIBLE.test(block.text),
  );

/** Anthropic refuses empty text blocks anywhere ("text content blocks must be non-empty"). */
const withoutEmptyText = <T extends { readonly type: string; readonly text?: unknown }>(blocks: T[]): T[] =>
  blocks.some((block) => block.type === 'text' && block.text === '')
    ? blocks.filter((block) => block.type !== 'text' || block.text !== '')
    : blocks;

/** The keys carried for a part or message (`cache_control`, `citations`, …). */
const extraOf = (item: { readonly providerMetadata?: ProviderMetadata }) =>
  objectMarker(markersOf(item, P), 'extra');

/** The carried blocks of `item`, each checked, as `restoreOpaque` takes them. */
function carried<T>(
  item: { readonly providerMetadata?: ProviderMetadata },
  where: string,
  check: (value: JsonValue, where: string) => T,
) {
  const items = opaqueItems(markersOf(item, P));
  for (const [k, entry] of items.entries()) {
    check(entry.value, `${where}.providerMetadata.anthropic.opaque[${k}].value`);
  }
  // Checked: each value is the block it was checked as.
  return { items, revive: (value: JsonValue) => value as T };
}

type ToolResultContent = Exclude<AnthropicToolResultBlock['content'], string | undefined>[number];

interface Settings {
  readonly reasoning: 'auto' | 'omit';
  readonly api: AnthropicApi;
  readonly unsupported: UnsupportedAttachments;
}

function toolResultBlock(
  part: Extract<Part, { type: 'tool-result' }>,
  where: string,
  settings: Settings,
): AnthropicToolResultBlock {
  const markers = markersOf(part, P);
  const shape = markers.content;
  const only = part.content[0];
  const opaque = carried(part, where, carriedToolResultBlock);
  const inner = restoreOpaque<ToolResultContent>(
    part.content.map((item, index) =>
      item.type === 'text'
        ? withExtra(extraOf(item), { type: 'text' as const, text: item.text })
        : attachmentToBlock(item, { where: `${where}.content[${index}]`, unsupported: settings.unsupported }),
    ),
    opaque.items,
    opaque.revive,
  );
  const content =
    shape === 'string' && part.content.length === 1 && only?.type === 'text' && inner.length === 1
      ? only.text
      : shape === 'absent' && inner.length === 0
        ? undefined
        : withoutEmptyText(inner);
  return withExtra(extraOf(part), {
    type: 'tool_result',
    tool_use_id: part.callId,
    ...(content === undefined ? {} : { content }),
    ...(part.isError === undefined ? {} : { is_error: part.isError }),
  });
}

function blocksFromParts(parts: readonly Part[], where: string, settings: Settings): AnthropicBetaBlock[] {
  const blocks: AnthropicBetaBlock[] = [];
  parts.forEach((part, index) => {
    // Paths are built only for the parts that can fail (most parts are text).
    const at = () => `${where}[${index}]`;
    switch (part.type) {
      case 'text':
        blocks.push(withExtra(extraOf(part), { type: 'text', text: part.text }));
        break;
      case 'reasoning':
        // Anthropic rejects thinking without its signature (reasoning from other providers).
        if (settings.reasoning === 'omit') break;
        if (part.redactedData !== undefined) {
          blocks.push(withExtra(extraOf(part), { type: 'redacted_thinking', data: part.redactedData }));
        } else if (part.signature !== undefined) {
          blocks.push(
            withExtra(extraOf(part), { type: 'thinking', thinking: part.text, signature: part.signature }),
          );
        }
        break;
      case 'tool-call': {
        const input = parseToolArguments(part.arguments, `${at()}.arguments`, 'toAnthropic');
        const object =
          typeof input === 'object' && input !== null && !Array.isArray(input) ? input : { input };
        blocks.push(
          withExtra(extraOf(part), { type: 'tool_use', id: part.id, name: part.name, input: object }),
        );
        break;
      }
      case 'attachment':
        blocks.push(attachmentToBlock(part, { where: at(), unsupported: settings.unsupported }));
        break;
      case 'tool-result':
        blocks.push(toolResultBlock(part, at(), settings));
        break;
    }
  });
  return blocks;
}

/** The blocks of a user, assistant or tool message, carried blocks back at their positions. */
function turnBlocks(message: Message, where: string, settings: Settings): AnthropicBetaBlock[] {
  const opaque = carried(message, where, (value, at) => carriedTurnBlock(value, at, settings.api));
  const blocks = blocksFromParts(message.parts, `${where}.parts`, settings);
  return withoutEmptyText(restoreOpaque(blocks, opaque.items, opaque.revive));
}

/** The text blocks of a system message (attachments as text stand-ins, see `attachmentAsText`). */
function systemBlocks(message: Message, index: number, settings: Settings): AnthropicTextBlock[] {
  if (opaqueItems(markersOf(message, P)).length > 0) {
    const where = `messages[${index}].providerMetadata.anthropic.opaque`;
    throw new ChatfoldError(
      'E_INVALID_MESSAGE',
      `toAnthropic: ${where}: a system message carries Anthropic blocks, but Anthropic's system prompt holds only text; move them to a user or assistant message`,
      { where, function: 'toAnthropic' },
    );
  }
  const blocks: AnthropicTextBlock[] = [];
  message.parts.forEach((part, i) => {
    const context: AttachmentContext = {
      where: `messages[${index}].parts[${i}]`,
      unsupported: settings.unsupported,
    };
    if (part.type === 'text') blocks.push(withExtra(extraOf(part), { type: 'text', text: part.text }));
    else if (part.type === 'attachment') blocks.push(attachmentAsText(part, context));
  });
  return withoutEmptyText(blocks);
}

/** Blocks of a turn's content. */
const asBlocks = <T>(value: string | T[]): (T | AnthropicTextBlock)[] =>
  typeof value === 'string' ? (value === '' ? [] : [{ type: 'text', text: value }]) : value;

/**
 * Converts neutral messages to an Anthropic Messages request (MSG-2, SUM-7) that the official
 * SDK takes as it is: `client.messages.create({ model, max_tokens, ...toAnthropic(messages) })`.
 *
 * - System messages go to `system` (one that came as a `system` message inside `messages`
 *   goes back there).
 * - Tool messages become user turns of `tool_result` blocks; consecutive same-role turns are
 *   merged (the API requires alternation), `tool_result` blocks first in a merged user turn.
 * - Reasoning: signed thinking and redacted thinking go back as they came; reasoning without a
 *   signature (from other providers) is dropped, as the API would reject it.
 * - Tool-call arguments that are not a JSON object are sent as `{ "input": <value> }`;
 *   arguments that are not JSON at all throw `E_INVALID_TOOL_ARGUMENTS`.
 * - Attachments go in forms the API reads (images as JPEG/PNG/GIF/WebP, documents as PDF or
 *   plain text, see `attachmentToBlock`); others (audio, video, a BMP image, …) become a text
 *   stand-in, or throw with `unsupportedAttachments: 'error'`.
 * - Server-tool blocks carried from Anthropic (`server_tool_use`, `web_search_tool_result`,
 *   …) go back at their position, checked against their request shapes; the MCP connector's
 *   blocks need `api: 'beta'`.
 * - What Anthropic forbids but means nothing is left out (MSG-4): empty text blocks (in
 *   turns, tool results and the system prompt), and a turn or system prompt left with only
 *   whitespace text or nothing (an empty message, reasoning-only turns when reasoning is
 *   dropped). Whitespace text beside other content is kept, as the API accepts it.
 *
 * @param messages Neutral messages.
 * @param options `reasoning`, `api`, `unsupportedAttachments` (see {@link ToAnthropicOptions}).
 * @returns `system` and `messages`, typed as the SDK's `MessageCreateParams` parts (with
 *   `api: 'beta'`, as `client.beta.messages`' parts).
 * @throws ChatfoldError for input that is not neutral messages (see `assertMessages`),
 *   `E_INVALID_TOOL_ARGUMENTS` / `E_NESTING_TOO_DEEP` for tool arguments it cannot send,
 *   `E_INVALID_MESSAGE` naming the part for a carried block the API would refuse or (with
 *   `unsupportedAttachments: 'error'`) an attachment it cannot read, `E_INVALID_OPTIONS`.
 * @example
 * const { system, messages } = toAnthropic(history);
 * await anthropic.messages.create({ model, max_tokens: 1024, system, messages });
 */
export function toAnthropic(
  messages: readonly Message[],
  options?: ToAnthropicOptions & { readonly api?: 'messages' },
): AnthropicRequest;
export function toAnthropic(
  messages: readonly Message[],
  options: ToAnthropicOptions & { readonly api: 'beta' },
): AnthropicBetaRequest;
export function toAnthropic(
  messages: readonly Message[],
  options?: ToAnthropicOptions,
): AnthropicRequest | AnthropicBetaRequest;
export function toAnthropic(
  input: readonly Message[],
  options: ToAnthropicOptions = {},
): AnthropicBetaRequest {
  const messages = assertMessages(input, 'toAnthropic', { cache: options?.cache });
  const settings: Settings = {
    reasoning: reasoningOption(options, ['auto', 'omit'], 'toAnthropic'),
    api: choice(options, 'api', ['messages', 'beta']),
    unsupported: choice(options, 'unsupportedAttachments', ['placeholder', 'error']),
  };
  const system: AnthropicTextBlock[] = [];
  let systemMessages = 0;
  let systemAsString = true;
  const turns: AnthropicMessage<AnthropicBetaBlock>[] = [];
  messages.forEach((message, index) => {
    const markers = markersOf(message, P);
    if (message.role === 'system' && markers.inline !== true) {
      systemMessages++;
      systemAsString &&= markers.content === 'string' && message.parts.length === 1;
      system.push(...systemBlocks(message, index, settings));
      return;
    }
    const where = `messages[${index}]`;
    const blocks =
      message.role === 'system'
        ? systemBlocks(message, index, settings)
        : turnBlocks(message, where, settings);
    // An empty turn is refused ("all messages must have non-empty content") and says nothing.
    if (isBlank(blocks)) return;
    const only = blocks[0];
    // A string where the source had one; blocks otherwise (the form every block type allows).
    const asString =
      markers.content === 'string' &&
      blocks.length <= 1 &&
      (only === undefined || (only.type === 'text' && Object.keys(only).length === 2));
    const text = only?.type === 'text' ? only.text : '';
    const last = turns.at(-1);
    if (message.role === 'system') {
      const content = asString ? text : (blocks as AnthropicTextBlock[]);
      if (last?.role === 'system') last.content = [...asBlocks(last.content), ...asBlocks(content)];
      else turns.push({ role: 'system', content });
      return;
    }
    const role = message.role === 'tool' ? 'user' : message.role;
    const content = asString ? text : blocks;
    if (last === undefined || last.role !== role) {
      turns.push({ role, content });
      return;
    }
    const merged = [...asBlocks(last.content), ...asBlocks(content)];
    // Tool results must open a user turn; keep every other block in its order after them.
    last.content =
      role === 'user'
        ? [
            ...merged.filter((b) => b.type === 'tool_result'),
            ...merged.filter((b) => b.type !== 'tool_result'),
          ]
        : merged;
  });
  const first = system[0];
  const systemOut = isBlank(system)
    ? undefined
    : systemAsString &&
        systemMessages === 1 &&
        system.length === 1 &&
        first !== undefined &&
        Object.keys(first).length === 2
      ? first.text
      : system;
  return { ...(systemOut === undefined ? {} : { system: systemOut }), messages: turns };
}
