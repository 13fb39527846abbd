/**
 * How converters remember provider details for lossless round trips (MSG-2).
 *
 * Rule: `providerMetadata` holds format markers (was `content` a string or an array, was a
 * call id generated, a `cache_control` setting), never a second copy of the content. So when a
 * strategy replaces a tool result's text, converting back sends the new text, not the original.
 * The one exception is opaque items: provider blocks with no neutral part (Anthropic server-tool
 * blocks, AI SDK approval parts, Gemini code execution), kept verbatim with their position.
 */
import type { JsonValue, ProviderMetadata } from './types.ts';

/** Markers of one provider on a message or part. */
export type Markers = Readonly<Record<string, JsonValue>>;

const NONE: Markers = Object.freeze({});

/** The markers `item` carries for `provider` (`{}` when none). */
export function markersOf(item: { readonly providerMetadata?: ProviderMetadata }, provider: string): Markers {
  return item.providerMetadata?.[provider] ?? NONE;
}

/**
 * `{ providerMetadata }` holding `values` (undefined entries dropped) for `provider`, or `{}`
 * when nothing is left; spread it into a part or message.
 */
export function withMarkers(
  provider: string,
  values: Readonly<Record<string, JsonValue | undefined>>,
): { providerMetadata?: ProviderMetadata } {
  const kept: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) kept[key] = value;
  return Object.keys(kept).length === 0 ? {} : { providerMetadata: { [provider]: kept } };
}

/** A marker's value if it is a string. */
export const stringMarker = (markers: Markers, key: string): string | undefined => {
  const value = markers[key];
  return typeof value === 'string' ? value : undefined;
};

/** A marker's value if it is a JSON object. */
export const objectMarker = (
  markers: Markers,
  key: string,
): Readonly<Record<string, JsonValue>> | undefined => {
  const value = markers[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
};

/** A provider item kept verbatim at its position among its siblings. */
export interface OpaqueItem {
  readonly index: number;
  readonly value: JsonValue;
}

/** The opaque items recorded under `markers.opaque`. */
export function opaqueItems(markers: Markers): OpaqueItem[] {
  const list = markers.opaque;
  if (!Array.isArray(list)) return [];
  const items: OpaqueItem[] = [];
  for (const entry of list) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) continue;
    if (typeof entry.index === 'number' && entry.value !== undefined) {
      items.push({ index: entry.index, value: entry.value });
    }
  }
  return items;
}

/** The `opaque` marker value for a list of items, or undefined when there are none. */
export const opaqueMarker = (items: readonly OpaqueItem[]): JsonValue | undefined =>
  items.length === 0 ? undefined : items.map((item) => ({ index: item.index, value: item.value }));

/**
 * Puts opaque items back at their recorded positions (clamped to the end when a strategy
 * shortened the list), in recorded order.
 */
export function restoreOpaque<T>(
  items: readonly T[],
  opaque: readonly OpaqueItem[],
  revive: (value: JsonValue, index: number) => T,
): T[] {
  if (opaque.length === 0) return [...items];
  const out = [...items];
  for (const item of [...opaque].sort((a, b) => a.index - b.index)) {
    out.splice(Math.min(item.index, out.length), 0, revive(item.value, item.index));
  }
  return out;
}
