/**
 * The many ways an AI SDK part carries file content (base64 string, data URL, URL string or
 * object, bytes, v7 tagged `{ type: 'data' | 'url' | 'reference' | 'text' }`), read into neutral
 * `data` / `url` plus a marker that writes it back the same way.
 */

import type { AiSdkData } from './ai-sdk-schema.ts';
import { base64ToBytes, base64ToText, bytesToBase64, parseDataUrl, textToBase64 } from './attachment-data.ts';
import type { JsonValue } from './types.ts';

/** Neutral content of an AI SDK data value and how to write it back. */
export interface ReadData {
  readonly data?: string;
  readonly url?: string;
  /** Media type a data URL named. */
  readonly mediaType?: string;
  /** Markers: `source` (the form), `dataUrl` (prefix), `reference` (provider file ids). */
  readonly markers: Readonly<Record<string, JsonValue | undefined>>;
}

function readPlain(value: string | Uint8Array | ArrayBuffer | URL, prefix: string): ReadData {
  if (value instanceof URL) return { url: value.href, markers: { source: `${prefix}url` } };
  if (value instanceof Uint8Array)
    return { data: bytesToBase64(value), markers: { source: `${prefix}bytes` } };
  if (value instanceof ArrayBuffer) {
    return { data: bytesToBase64(new Uint8Array(value)), markers: { source: `${prefix}arrayBuffer` } };
  }
  const inline = parseDataUrl(value);
  if (inline !== undefined) {
    return {
      data: inline.data,
      ...(inline.mediaType === '' ? {} : { mediaType: inline.mediaType }),
      markers: { source: `${prefix}dataUrl`, dataUrl: inline.prefix },
    };
  }
  // The AI SDK reads a string that parses as a URL as a URL, anything else as base64.
  if (URL.canParse(value)) return { url: value, markers: { source: `${prefix}string` } };
  return { data: value, markers: { source: `${prefix}base64` } };
}

/** Keys of a tagged data object besides its payload (v7 `originalUrl`), kept for the way back. */
function taggedExtra(tagged: Record<string, unknown>, payload: string): JsonValue | undefined {
  const entries = Object.entries(tagged).filter(
    ([key, value]) => key !== 'type' && key !== payload && value !== undefined,
  );
  return entries.length === 0 ? undefined : (toJsonValue(Object.fromEntries(entries)) as JsonValue);
}

/** Reads an AI SDK data value. */
export function readAiSdkData(value: AiSdkData): ReadData {
  if (
    typeof value === 'string' ||
    value instanceof Uint8Array ||
    value instanceof ArrayBuffer ||
    value instanceof URL
  ) {
    return readPlain(value, '');
  }
  const tagged = value as Record<string, unknown>;
  const withExtra = (read: ReadData, payload: string): ReadData => {
    const extra = taggedExtra(tagged, payload);
    return extra === undefined ? read : { ...read, markers: { ...read.markers, taggedExtra: extra } };
  };
  switch (tagged.type) {
    case 'data':
      return withExtra(readPlain(tagged.data as string | Uint8Array | ArrayBuffer, 'tagged-'), 'data');
    case 'url':
      return withExtra(readPlain(tagged.url as string | URL, 'tagged-'), 'url');
    case 'reference':
      return withExtra(
        { markers: { source: 'tagged-reference', reference: tagged.reference as JsonValue } },
        'reference',
      );
    case 'text':
      return withExtra(
        { data: textToBase64(tagged.text as string), markers: { source: 'tagged-text' } },
        'text',
      );
    default:
      return { markers: { source: 'reference', reference: value as JsonValue } };
  }
}

function writePlain(
  kind: string,
  data: string | undefined,
  url: string | undefined,
  dataUrl: string | undefined,
): unknown {
  if (data !== undefined) {
    if (kind === 'bytes') return base64ToBytes(data);
    if (kind === 'arrayBuffer') return base64ToBytes(data).buffer;
    if (kind === 'dataUrl' && dataUrl !== undefined) return `${dataUrl}${data}`;
    return data;
  }
  if (url !== undefined) return kind === 'url' ? new URL(url) : url;
  return undefined;
}

/** A URL object when the text parses as one (v7 tagged `url` data must be a `URL`). */
const asUrl = (url: string): URL | string => (URL.canParse(url) ? new URL(url) : url);

/**
 * Writes neutral content back in the form `markers.source` names; without markers, base64
 * text or a URL string (both forms every AI SDK version accepts).
 */
export function writeAiSdkData(
  part: { readonly data?: string; readonly url?: string; readonly mediaType: string },
  markers: Readonly<Record<string, JsonValue>>,
): unknown {
  const source = typeof markers.source === 'string' ? markers.source : '';
  const dataUrl = typeof markers.dataUrl === 'string' ? markers.dataUrl : undefined;
  const extra = objectOrEmpty(markers.taggedExtra);
  if (source === 'tagged-reference') return { type: 'reference', reference: markers.reference, ...extra };
  if (source === 'reference') return markers.reference;
  if (source === 'tagged-text' && part.data !== undefined)
    return { type: 'text', text: base64ToText(part.data), ...extra };
  if (source.startsWith('tagged-')) {
    if (part.data !== undefined) {
      return {
        type: 'data',
        data: writePlain(source.slice('tagged-'.length), part.data, undefined, dataUrl),
        ...extra,
      };
    }
    return part.url === undefined ? undefined : { type: 'url', url: asUrl(part.url), ...extra };
  }
  return writePlain(source, part.data, part.url, dataUrl);
}

const objectOrEmpty = (value: JsonValue | undefined): Record<string, JsonValue> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};

/** A JSON copy of a value (bytes as base64, URLs as text), for opaque parts kept in metadata. */
export function toJsonValue(value: unknown): JsonValue {
  if (value instanceof Uint8Array) return bytesToBase64(value);
  if (value instanceof ArrayBuffer) return bytesToBase64(new Uint8Array(value));
  if (value instanceof URL) return value.href;
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, item]) => item !== undefined)
        .map(([key, item]) => [key, toJsonValue(item)]),
    );
  }
  return value as JsonValue;
}

/** How a value that JSON cannot hold was written (`toJsonValue` turns it into text). */
type BinaryForm = 'bytes' | 'arrayBuffer' | 'url';
/** `[path, form]` for each such value inside an opaque part. */
type BinaryForms = [readonly (string | number)[], BinaryForm][];

function collectForms(value: unknown, path: (string | number)[], out: BinaryForms): void {
  if (value instanceof Uint8Array) out.push([[...path], 'bytes']);
  else if (value instanceof ArrayBuffer) out.push([[...path], 'arrayBuffer']);
  else if (value instanceof URL) out.push([[...path], 'url']);
  else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      collectForms(item, [...path, i], out);
    });
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) collectForms(item, [...path, key], out);
  }
}

/**
 * A part with no neutral form as JSON (it is stored in metadata), plus where it held bytes or
 * URL objects, so {@link decodeOpaque} gives back the same value, not its text form.
 */
export function encodeOpaque(value: unknown): { value: JsonValue; forms?: JsonValue } {
  const forms: BinaryForms = [];
  collectForms(value, [], forms);
  return { value: toJsonValue(value), ...(forms.length === 0 ? {} : { forms: forms as JsonValue }) };
}

/** The value {@link encodeOpaque} encoded. */
export function decodeOpaque(value: JsonValue, forms: JsonValue | undefined): unknown {
  if (!Array.isArray(forms) || forms.length === 0) return value;
  const copy = structuredClone(value) as unknown;
  let root = copy;
  for (const entry of forms) {
    if (!Array.isArray(entry) || !Array.isArray(entry[0])) continue;
    const [path, form] = entry as [(string | number)[], BinaryForm];
    const revive = (text: unknown): unknown => {
      if (typeof text !== 'string') return text;
      if (form === 'url') return asUrl(text);
      const bytes = base64ToBytes(text);
      return form === 'bytes' ? bytes : bytes.buffer;
    };
    if (path.length === 0) {
      root = revive(root);
      continue;
    }
    let parent: unknown = root;
    for (const key of path.slice(0, -1)) parent = (parent as Record<string | number, unknown> | null)?.[key];
    if (typeof parent !== 'object' || parent === null) continue;
    const holder = parent as Record<string | number, unknown>;
    const last = path[path.length - 1] as string | number;
    holder[last] = revive(holder[last]);
  }
  return root;
}
