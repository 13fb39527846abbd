import type {
  AnthropicBlock,
  AnthropicMessage,
  AnthropicRequest,
  AnthropicTextBlock,
} from './anthropic-schema.ts';
import { attachmentPlaceholder, base64ToText } from './attachment-data.ts';
import { assertMessages } from './check-messages.ts';
import { reasoningOption, type ToProviderOptions } from './converter-options.ts';
import { markersOf, objectMarker, opaqueItems, restoreOpaque, stringMarker } from './provider-metadata.ts';
import { parseToolArguments } from './tool-arguments.ts';
import type { AttachmentPart, Message, Part, ProviderMetadata } from './types.ts';

const P = 'anthropic';
type Json = Record<string, unknown>;
const VISIBLE = /\S/;

/**
 * True for a block list Anthropic would refuse as empty: nothing, or only whitespace text
 * ("all messages must have non-empty content", "text content blocks must contain
 * non-whitespace text"). Whitespace text beside real content is accepted (Claude writes it).
 */
const isBlank = (blocks: readonly AnthropicBlock[]): boolean =>
  blocks.every((block) => block.type === 'text' && !VISIBLE.test(block.text));

/** Anthropic refuses empty text blocks anywhere ("text content blocks must be non-empty"). */
const withoutEmptyText = <T extends { readonly type: string; readonly text?: unknown }>(blocks: T[]): T[] =>
  blocks.some((block) => block.type === 'text' && block.text === '')
    ? blocks.filter((block) => block.type !== 'text' || block.text !== '')
    : blocks;

const extraOf = (part: { readonly providerMetadata?: ProviderMetadata }, key = 'extra') =>
  objectMarker(markersOf(part, P), key) ?? {};

function sourceOf(part: AttachmentPart): Json | undefined {
  const markers = markersOf(part, P);
  const kind = stringMarker(markers, 'source');
  const sourceExtra = objectMarker(markers, 'sourceExtra') ?? {};
  const fileId = stringMarker(markers, 'fileId');
  if (kind === 'content' && markers.content !== undefined)
    return { type: 'content', content: markers.content, ...sourceExtra };
  if (fileId !== undefined) return { type: 'file', file_id: fileId, ...sourceExtra };
  if (part.data !== undefined) {
    if (kind === 'text' || (kind === undefined && part.mediaType === 'text/plain' && part.kind === 'file')) {
      return { type: 'text', media_type: 'text/plain', data: base64ToText(part.data), ...sourceExtra };
    }
    return { type: 'base64', media_type: part.mediaType, data: part.data, ...sourceExtra };
  }
  if (part.url !== undefined) return { type: 'url', url: part.url, ...sourceExtra };
  return undefined;
}

/** An image or PDF/text document block; a text placeholder for what Anthropic cannot read. */
function attachmentToBlock(part: AttachmentPart): AnthropicBlock {
  const markers = markersOf(part, P);
  const source = sourceOf(part);
  const isImage = part.kind === 'image' || part.mediaType.startsWith('image/');
  const isDocument =
    stringMarker(markers, 'source') !== undefined ||
    part.mediaType === 'application/pdf' ||
    (part.mediaType === 'text/plain' && part.data !== undefined);
  if (source === undefined || (!isImage && !isDocument))
    return { type: 'text', text: attachmentPlaceholder(part) };
  const title =
    part.filename !== undefined ? { title: part.filename } : markers.title === null ? { title: null } : {};
  return (
    isImage && part.kind === 'image'
      ? { type: 'image', source, ...extraOf(part) }
      : { type: 'document', source, ...title, ...extraOf(part) }
  ) as AnthropicBlock;
}

function blocksFromParts(
  parts: readonly Part[],
  reasoning: 'auto' | 'omit',
  where: string,
): AnthropicBlock[] {
  const blocks: AnthropicBlock[] = [];
  parts.forEach((part, index) => {
    switch (part.type) {
      case 'text':
        blocks.push({ type: 'text', text: part.text, ...extraOf(part) } as AnthropicBlock);
        break;
      case 'reasoning':
        // Anthropic rejects thinking without its signature (reasoning from other providers).
        if (reasoning === 'omit') break;
        if (part.redactedData !== undefined) {
          blocks.push({
            type: 'redacted_thinking',
            data: part.redactedData,
            ...extraOf(part),
          } as AnthropicBlock);
        } else if (part.signature !== undefined) {
          blocks.push({
            type: 'thinking',
            thinking: part.text,
            signature: part.signature,
            ...extraOf(part),
          } as AnthropicBlock);
        }
        break;
      case 'tool-call': {
        const input = parseToolArguments(part.arguments, `${where}[${index}].arguments`, 'toAnthropic');
        const object =
          typeof input === 'object' && input !== null && !Array.isArray(input) ? input : { input };
        blocks.push({
          type: 'tool_use',
          id: part.id,
          name: part.name,
          input: object,
          ...extraOf(part),
        } as AnthropicBlock);
        break;
      }
      case 'attachment':
        blocks.push(attachmentToBlock(part));
        break;
      case 'tool-result': {
        const markers = markersOf(part, P);
        const shape = stringMarker(markers, 'content');
        const only = part.content[0];
        const inner = restoreOpaque(
          part.content.map((item) =>
            item.type === 'text'
              ? { type: 'text', text: item.text, ...extraOf(item) }
              : attachmentToBlock(item),
          ),
          opaqueItems(markers),
          (value) => value as AnthropicBlock,
        );
        const content =
          shape === 'string' && part.content.length === 1 && only?.type === 'text' && inner.length === 1
            ? only.text
            : shape === 'absent' && inner.length === 0
              ? undefined
              : withoutEmptyText(inner);
        blocks.push({
          type: 'tool_result',
          tool_use_id: part.callId,
          ...(content === undefined ? {} : { content }),
          ...(part.isError === undefined ? {} : { is_error: part.isError }),
          ...extraOf(part),
        } as AnthropicBlock);
        break;
      }
    }
  });
  return blocks;
}

/**
 * Converts neutral messages to an Anthropic Messages request (MSG-2, SUM-7).
 *
 * - System messages go to `system` (one that came as a `system` message inside `messages`
 *   goes back there).
 * - Tool messages become user turns of `tool_result` blocks; consecutive same-role turns are
 *   merged (the API requires alternation), `tool_result` blocks first in a merged user turn.
 * - Reasoning: signed thinking and redacted thinking go back as they came; reasoning without a
 *   signature (from other providers) is dropped, as the API would reject it.
 * - Tool-call arguments that are not a JSON object are sent as `{ "input": <value> }`;
 *   arguments that are not JSON at all throw `E_INVALID_TOOL_ARGUMENTS`.
 * - Attachments Anthropic cannot read (audio, video, other files) become a text placeholder.
 * - What Anthropic forbids but means nothing is left out (MSG-4): empty text blocks (in
 *   turns, tool results and the system prompt), and a turn or system prompt left with only
 *   whitespace text or nothing (an empty message, reasoning-only turns when reasoning is
 *   dropped). Whitespace text beside other content is kept, as the API accepts it.
 *
 * @throws ChatfoldError for input that is not neutral messages (see `assertMessages`),
 *   `E_INVALID_TOOL_ARGUMENTS` / `E_NESTING_TOO_DEEP` for tool arguments it cannot send.
 * @example
 * const { system, messages } = toAnthropic(history);
 * await anthropic.messages.create({ model, max_tokens: 1024, system, messages });
 */
export function toAnthropic(messages: readonly Message[], options: ToProviderOptions = {}): AnthropicRequest {
  assertMessages(messages, 'toAnthropic');
  const reasoning = reasoningOption(options, ['auto', 'omit'], 'toAnthropic');
  const system: AnthropicTextBlock[] = [];
  let systemMessages = 0;
  let systemAsString = true;
  const turns: AnthropicMessage[] = [];
  messages.forEach((message, index) => {
    const markers = markersOf(message, P);
    if (message.role === 'system' && markers.inline !== true) {
      systemMessages++;
      systemAsString &&= markers.content === 'string' && message.parts.length === 1;
      for (const part of message.parts) {
        if (part.type === 'text') {
          if (part.text !== '') system.push({ type: 'text', text: part.text, ...extraOf(part) });
        } else if (part.type === 'attachment')
          system.push({ type: 'text', text: attachmentPlaceholder(part) });
      }
      return;
    }
    const role = message.role === 'tool' ? 'user' : message.role;
    const blocks = withoutEmptyText(
      restoreOpaque(
        blocksFromParts(message.parts, reasoning, `messages[${index}].parts`),
        opaqueItems(markers),
        (value) => value as AnthropicBlock,
      ),
    );
    // An empty turn is refused ("all messages must have non-empty content") and says nothing.
    if (isBlank(blocks)) return;
    const only = blocks[0];
    // A string where the source had one; blocks otherwise (the form every block type allows).
    const asString =
      markers.content === 'string' &&
      blocks.length <= 1 &&
      (only === undefined || (only.type === 'text' && Object.keys(only).length === 2));
    const content: string | AnthropicBlock[] = asString ? (only?.type === 'text' ? only.text : '') : blocks;
    const last = turns.at(-1);
    if (last?.role !== role) {
      turns.push({ role, content });
      return;
    }
    const asBlocks = (value: string | AnthropicBlock[]): AnthropicBlock[] =>
      typeof value === 'string' ? (value === '' ? [] : [{ type: 'text', text: value }]) : value;
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
