/**
 * Base64 and data-URL handling shared by the provider converters. Pure JS (no `Buffer`) so
 * the core runs in browsers and workers too.
 */
import type { AttachmentPart } from './types.ts';

/** Media type for an image whose exact type the source did not say. */
export const UNKNOWN_IMAGE_TYPE = 'image/*';
/** Media type for a file whose type the source did not say. */
export const UNKNOWN_FILE_TYPE = 'application/octet-stream';

/** Bytes that base64 text decodes to (padding and whitespace accounted for; not validated). */
export function base64ByteLength(data: string): number {
  let length = data.length;
  while (length > 0 && data.charCodeAt(length - 1) === 61 /* = */) length--;
  const whitespace = /\s/.test(data) ? (data.match(/\s/g) ?? []).length : 0;
  // Every 4 base64 characters carry 3 bytes; a trailing group of 2 or 3 carries 1 or 2.
  return Math.floor(((length - whitespace) * 3) / 4);
}

/** A parsed `data:` URL with base64 content. */
export interface DataUrl {
  /** The media type before the first `;`, or `` when the URL has none. */
  readonly mediaType: string;
  readonly data: string;
  /** Everything before the data, e.g. `data:image/png;base64,`. */
  readonly prefix: string;
}

/** Splits a base64 `data:` URL; undefined for anything else (https URLs, non-base64 data URLs). */
export function parseDataUrl(url: string): DataUrl | undefined {
  if (!url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  if (comma < 0) return undefined;
  const header = url.slice(5, comma);
  const params = header.split(';');
  if (params.at(-1)?.toLowerCase() !== 'base64') return undefined;
  return { mediaType: params[0] ?? '', data: url.slice(comma + 1), prefix: url.slice(0, comma + 1) };
}

/** `data:<mediaType>;base64,<data>`. */
export function toDataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}

/** Base64 of bytes. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** Bytes of base64 text. */
export function base64ToBytes(data: string): Uint8Array {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Base64 of the UTF-8 encoding of a string (for plain-text documents). */
export function textToBase64(text: string): string {
  return bytesToBase64(new TextEncoder().encode(text));
}

/** The UTF-8 text that base64 data encodes. */
export function base64ToText(data: string): string {
  return new TextDecoder().decode(base64ToBytes(data));
}

/**
 * A one-line text stand-in for an attachment a target format cannot carry (an image in an
 * OpenAI tool result, audio for Anthropic): the model still learns that something was there.
 */
export function attachmentPlaceholder(part: AttachmentPart): string {
  const facts = [part.mediaType];
  if (part.filename !== undefined) facts.unshift(part.filename);
  if (part.size !== undefined) facts.push(`${part.size} bytes`);
  if (part.url !== undefined && !part.url.startsWith('data:')) facts.push(part.url);
  return `[${part.kind === 'image' ? 'image' : 'file'}: ${facts.join(', ')}]`;
}
