/**
 * Neutral attachments → Anthropic image and document blocks, sent only in forms the Messages
 * API reads (MSG-2, MSG-4): images as JPEG, PNG, GIF or WebP; documents as PDF (inline or by
 * URL) or plain text; Files API ids and `content` document sources as they came. Anything else
 * becomes a text stand-in, or with `unsupportedAttachments: 'error'` an `E_INVALID_MESSAGE`.
 */
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { documentSourceContent } from './anthropic-carried-blocks.ts';
import {
  ANTHROPIC_IMAGE_TYPES,
  type AnthropicDocumentBlock,
  type AnthropicDocumentSource,
  type AnthropicImageBlock,
  type AnthropicImageMediaType,
  type AnthropicImageSource,
  type AnthropicTextBlock,
} from './anthropic-request.ts';
import {
  attachmentPlaceholder,
  base64ToBytes,
  base64ToText,
  parseDataUrl,
  UNKNOWN_FILE_TYPE,
  UNKNOWN_IMAGE_TYPE,
} from './attachment-data.ts';
import { markersOf, objectMarker, stringMarker } from './provider-metadata.ts';
import type { AttachmentPart, JsonValue } from './types.ts';

/**
 * What `toAnthropic` does with an attachment Anthropic cannot read (audio, video, a BMP or
 * HEIC image, a spreadsheet, a file behind a `gs://` URL):
 * - `'placeholder'` (default): a text block saying what was there (`[image: scan.bmp,
 *   image/bmp, 120 bytes]`), so the request still goes and the model knows;
 * - `'error'`: throw `E_INVALID_MESSAGE` naming the part.
 */
export type UnsupportedAttachments = 'placeholder' | 'error';

const P = 'anthropic';
const PDF = 'application/pdf';
const IMAGE_TYPES = new Set<string>(ANTHROPIC_IMAGE_TYPES);
/** Types that mean "not said" rather than a type Anthropic cannot read. */
const GENERIC_TYPES = new Set(['', UNKNOWN_IMAGE_TYPE, UNKNOWN_FILE_TYPE]);
/** Non-`text/*` types whose content is text, sent as plain-text documents. */
const TEXT_APPLICATION_TYPES = new Set([
  'application/json',
  'application/x-ndjson',
  'application/xml',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/javascript',
  'application/x-javascript',
  'application/typescript',
  'application/x-sh',
  'application/sql',
]);
const HTTP_URL = /^https?:\/\//i;
const BASE64_HEAD = /^[A-Za-z0-9+/]*/;

/** Lower case without parameters; the common `image/jpg` alias as `image/jpeg`. */
function normalType(mediaType: string): string {
  const type = (mediaType.split(';')[0] ?? '').trim().toLowerCase();
  return type === 'image/jpg' || type === 'image/pjpeg' ? 'image/jpeg' : type;
}

const isTextType = (type: string): boolean =>
  type.startsWith('text/') ||
  TEXT_APPLICATION_TYPES.has(type) ||
  (!type.startsWith('image/') && (type.endsWith('+json') || type.endsWith('+xml')));

const isImageType = (type: string): type is AnthropicImageMediaType => IMAGE_TYPES.has(type);

/**
 * The type the first bytes of base64 `data` announce (PNG, JPEG, GIF, WebP, PDF signatures),
 * or undefined. Decodes at most 12 bytes, and only the well-formed base64 at the start.
 */
export function sniffMediaType(data: string): AnthropicImageMediaType | typeof PDF | undefined {
  const head = BASE64_HEAD.exec(data.slice(0, 16))?.[0] ?? '';
  if (head.length < 4) return undefined;
  const bytes = base64ToBytes(head.slice(0, head.length - (head.length % 4)));
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes[0] === 0x89 && ascii(1, 4) === 'PNG') return 'image/png';
  if (ascii(0, 4) === 'GIF8') return 'image/gif';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  if (ascii(0, 5) === '%PDF-') return PDF;
  return undefined;
}

/**
 * `block` with the keys carried for it from the source (`cache_control`, `citations`, …;
 * sent as they came, not typed); the block's own keys win.
 */
export const withExtra = <T extends object>(
  extra: Readonly<Record<string, JsonValue>> | undefined,
  block: T,
): T => (extra === undefined ? block : ({ ...extra, ...block } as T));

/** The converter's settings an attachment needs. */
export interface AttachmentContext {
  /** Path of the part, e.g. `messages[2].parts[1]`. */
  readonly where: string;
  readonly unsupported: UnsupportedAttachments;
}

/** The text stand-in for `part`; it keeps the part's cache breakpoint, if it had one. */
function placeholder(part: AttachmentPart): AnthropicTextBlock {
  const block: AnthropicTextBlock = { type: 'text', text: attachmentPlaceholder(part) };
  const mark = objectMarker(markersOf(part, P), 'extra')?.cache_control;
  // Only the breakpoint: a document's other keys (`citations`, `context`) mean something else on text.
  if (mark !== undefined) block.cache_control = mark as AnthropicTextBlock['cache_control'] & JsonValue;
  return block;
}

/** The stand-in for content Anthropic cannot take, or `E_INVALID_MESSAGE` saying why. */
function unsupported(part: AttachmentPart, context: AttachmentContext, reason: string): AnthropicTextBlock {
  if (context.unsupported === 'error') {
    throw new ChatfoldError(
      'E_INVALID_MESSAGE',
      `toAnthropic: ${context.where}: ${reason}; convert it first, or pass { unsupportedAttachments: 'placeholder' } to send a text stand-in`,
      { where: context.where, mediaType: part.mediaType, function: 'toAnthropic' },
    );
  }
  return placeholder(part);
}

function decodeText(data: string, where: string): string {
  try {
    return base64ToText(data);
  } catch (cause) {
    throw new ChatfoldError(
      'E_INVALID_MESSAGE',
      `toAnthropic: ${where}.data: expected base64, received ${JSON.stringify(data.slice(0, 40))}`,
      { where: `${where}.data`, function: 'toAnthropic' },
      { cause },
    );
  }
}

/**
 * An attachment as an Anthropic block (MSG-2):
 * - a Files API id or a `content` document source carried from Anthropic goes back as it came;
 * - inline data (`data`, or a base64 `data:` URL) is typed by its first bytes when they say
 *   (so `image/*`, `application/octet-stream` or a wrong label still send), else by
 *   `mediaType`: JPEG/PNG/GIF/WebP → image, PDF → base64 document, text (`text/*`, JSON, XML,
 *   YAML, …) → plain-text document;
 * - an http(s) URL → a URL image, or a URL document for a PDF;
 * - an attachment with no content (metadata only) → a text stand-in;
 * - anything else → `context.unsupported` decides (see {@link UnsupportedAttachments}).
 *
 * @throws ChatfoldError `E_INVALID_MESSAGE` naming the part: unsupported content with
 *   `unsupported: 'error'`, text data that is not base64, a malformed carried `content` source.
 */
export function attachmentToBlock(
  part: AttachmentPart,
  context: AttachmentContext,
): AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock {
  const markers = markersOf(part, P);
  const extra = objectMarker(markers, 'extra');
  const sourceExtra = objectMarker(markers, 'sourceExtra');
  const title =
    part.filename !== undefined ? { title: part.filename } : markers.title === null ? { title: null } : {};
  const image = (source: AnthropicImageSource): AnthropicImageBlock =>
    withExtra(extra, { type: 'image', source: withExtra(sourceExtra, source) });
  const document = (source: AnthropicDocumentSource): AnthropicDocumentBlock =>
    withExtra(extra, { type: 'document', source: withExtra(sourceExtra, source), ...title });

  const fileId = stringMarker(markers, 'fileId');
  if (stringMarker(markers, 'source') === 'content' && markers.content !== undefined) {
    const where = `${context.where}.providerMetadata.anthropic.content`;
    return document({ type: 'content', content: documentSourceContent(markers.content, where) });
  }
  if (fileId !== undefined) {
    const source = { type: 'file' as const, file_id: fileId };
    return part.kind === 'image' ? image(source) : document(source);
  }

  const dataUrl = part.data === undefined && part.url !== undefined ? parseDataUrl(part.url) : undefined;
  const data = part.data ?? dataUrl?.data;
  const declared = normalType(
    GENERIC_TYPES.has(part.mediaType) && dataUrl !== undefined ? dataUrl.mediaType : part.mediaType,
  );
  const type = (data === undefined ? undefined : sniffMediaType(data)) ?? declared;
  const isImage = type.startsWith('image/') || (part.kind === 'image' && type !== PDF && !isTextType(type));
  const cannotRead = () =>
    isImage
      ? `Anthropic reads images as ${ANTHROPIC_IMAGE_TYPES.join(', ')}, received ${part.mediaType}`
      : `Anthropic reads documents as application/pdf or text, received ${part.mediaType}`;

  if (data !== undefined) {
    if (isImageType(type)) return image({ type: 'base64', media_type: type, data });
    if (type === PDF) return document({ type: 'base64', media_type: PDF, data });
    if (!isImage && isTextType(type)) {
      return document({ type: 'text', media_type: 'text/plain', data: decodeText(data, context.where) });
    }
    return unsupported(part, context, cannotRead());
  }
  const url = part.url;
  if (url === undefined) return placeholder(part);
  if (!HTTP_URL.test(url)) {
    const shown = JSON.stringify(url.length > 60 ? `${url.slice(0, 60)}…` : url);
    return unsupported(part, context, `Anthropic fetches only http(s) URLs, received ${shown}`);
  }
  if (isImage) {
    return isImageType(type) || GENERIC_TYPES.has(type)
      ? image({ type: 'url', url })
      : unsupported(part, context, cannotRead());
  }
  if (type === PDF) return document({ type: 'url', url });
  return unsupported(
    part,
    context,
    `Anthropic fetches only images and PDFs by URL, received ${part.mediaType} at ${url}`,
  );
}

/**
 * An attachment where only text may go (the system prompt): its text stand-in, or with
 * `unsupported: 'error'` `E_INVALID_MESSAGE` when it has content that would be lost.
 */
export function attachmentAsText(part: AttachmentPart, context: AttachmentContext): AnthropicTextBlock {
  const markers = markersOf(part, P);
  const hasContent =
    part.data !== undefined ||
    part.url !== undefined ||
    markers.fileId !== undefined ||
    markers.content !== undefined;
  return hasContent
    ? unsupported(part, context, "Anthropic's system prompt holds only text")
    : placeholder(part);
}
