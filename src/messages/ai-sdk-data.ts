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
  const tagged = value as {
    type?: unknown;
    data?: unknown;
    url?: unknown;
    reference?: unknown;
    text?: unknown;
  };
  switch (tagged.type) {
    case 'data':
      return readPlain(tagged.data as string | Uint8Array | ArrayBuffer, 'tagged-');
    case 'url':
      return readPlain(tagged.url as string | URL, 'tagged-');
    case 'reference':
      return { markers: { source: 'tagged-reference', reference: tagged.reference as JsonValue } };
    case 'text':
      return { data: textToBase64(tagged.text as string), markers: { source: 'tagged-text' } };
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
  if (source === 'tagged-reference') return { type: 'reference', reference: markers.reference };
  if (source === 'reference') return markers.reference;
  if (source === 'tagged-text' && part.data !== undefined)
    return { type: 'text', text: base64ToText(part.data) };
  if (source.startsWith('tagged-')) {
    const inner = writePlain(source.slice('tagged-'.length), part.data, part.url, dataUrl);
    return part.data !== undefined ? { type: 'data', data: inner } : { type: 'url', url: inner };
  }
  return writePlain(source, part.data, part.url, dataUrl);
}

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
