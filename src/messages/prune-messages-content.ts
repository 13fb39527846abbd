/**
 * A message's content as the Vercel AI SDK sees it, for `pruneMessages`: the neutral parts plus
 * the AI SDK parts that have no neutral form and ride in `providerMetadata.aiSdk.opaque`
 * (tool approvals, reasoning files, provider-executed tool calls and results, custom parts), in
 * their original order. Pruning decides on these items, then they are split back.
 */
import {
  markersOf,
  type OpaqueItem,
  objectMarker,
  opaqueItems,
  opaqueMarker,
  restoreOpaque,
} from './provider-metadata.ts';
import type { JsonValue, Message, Part, ProviderMetadata } from './types.ts';

const P = 'aiSdk';

/** One content item: its AI SDK part type and the ids pruning looks at. */
export interface ContentItem {
  /** AI SDK part type: `text`, `file`, `reasoning`, `tool-call`, `tool-approval-request`, … */
  readonly type: string;
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly approvalId?: string;
  /** The neutral part, or the opaque item's JSON value and binary forms. */
  readonly part?: Part;
  readonly opaque?: { readonly value: JsonValue; readonly forms: JsonValue | undefined };
}

const AI_SDK_TYPE: Readonly<Record<Part['type'], string>> = {
  text: 'text',
  attachment: 'file',
  reasoning: 'reasoning',
  'tool-call': 'tool-call',
  'tool-result': 'tool-result',
};

function partItem(part: Part): ContentItem {
  if (part.type === 'tool-call') return { type: part.type, toolCallId: part.id, toolName: part.name, part };
  if (part.type === 'tool-result') {
    // No spread: this runs for every result of every call (issue 19, parity with the AI SDK).
    return part.toolName === undefined
      ? { type: part.type, toolCallId: part.callId, part }
      : { type: part.type, toolCallId: part.callId, toolName: part.toolName, part };
  }
  return { type: AI_SDK_TYPE[part.type], part };
}

const stringField = (value: JsonValue, key: string): string | undefined => {
  const field = typeof value === 'object' && value !== null && !Array.isArray(value) ? value[key] : undefined;
  return typeof field === 'string' ? field : undefined;
};

function opaqueItem(value: JsonValue, forms: JsonValue | undefined): ContentItem {
  const ids: Record<string, string> = {};
  for (const key of ['toolCallId', 'toolName', 'approvalId']) {
    const field = stringField(value, key);
    if (field !== undefined) ids[key] = field;
  }
  return { type: stringField(value, 'type') ?? 'unknown', ...ids, opaque: { value, forms } };
}

/** The items of `message`, in the order the AI SDK had them. */
export function contentOf(message: Message): ContentItem[] {
  const items = message.parts.map(partItem);
  const markers = markersOf(message, P);
  const opaque = opaqueItems(markers);
  if (opaque.length === 0) return items;
  const forms = objectMarker(markers, 'opaqueForms') ?? {};
  return restoreOpaque(items, opaque, (value, index) => opaqueItem(value, forms[index]));
}

/** Whether `message` may carry AI SDK items in metadata (else its items are its parts). */
export function hasOpaqueItems(message: Message): boolean {
  return markersOf(message, P).opaque !== undefined;
}

/** True when the AI SDK would see no content: no items, or a string content that is empty. */
export function isEmptyContent(message: Message, items: readonly ContentItem[]): boolean {
  if (items.length === 0) return true;
  const only = message.parts[0];
  return (
    markersOf(message, P).content === 'string' &&
    items.length === 1 &&
    only?.type === 'text' &&
    only.text === ''
  );
}

/** `message` holding only `kept` (a subset of its {@link contentOf} items, in order). */
export function withContent(message: Message, kept: readonly ContentItem[]): Message {
  const markers = markersOf(message, P);
  if (markers.opaque === undefined) {
    const parts: Part[] = [];
    for (const item of kept) if (item.part !== undefined) parts.push(item.part);
    return { ...message, parts };
  }
  const parts: Part[] = [];
  const opaque: OpaqueItem[] = [];
  const forms: Record<string, JsonValue> = {};
  kept.forEach((item, index) => {
    if (item.part !== undefined) parts.push(item.part);
    else if (item.opaque !== undefined) {
      opaque.push({ index, value: item.opaque.value });
      if (item.opaque.forms !== undefined) forms[index] = item.opaque.forms;
    }
  });
  const { opaque: _opaque, opaqueForms: _forms, ...rest } = markers;
  const list = opaqueMarker(opaque);
  const aiSdk = {
    ...rest,
    ...(list === undefined ? {} : { opaque: list }),
    ...(Object.keys(forms).length === 0 ? {} : { opaqueForms: forms }),
  };
  const { [P]: _old, ...others } = message.providerMetadata ?? {};
  const providerMetadata: ProviderMetadata =
    Object.keys(aiSdk).length === 0 ? others : { ...others, [P]: aiSdk };
  const { providerMetadata: _metadata, ...base } = message;
  return { ...base, parts, ...(Object.keys(providerMetadata).length === 0 ? {} : { providerMetadata }) };
}
