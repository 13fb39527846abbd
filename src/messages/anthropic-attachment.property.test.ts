/**
 * MSG-4 property: whatever attachment a conversation holds, toAnthropic sends it only in a form
 * the Messages API reads, or as a text stand-in; with `unsupportedAttachments: 'error'` it
 * throws E_INVALID_MESSAGE exactly where it would have stood in for content.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { toAnthropic } from './anthropic.ts';
import { ANTHROPIC_IMAGE_TYPES } from './anthropic-request.ts';
import type { AttachmentPart, Message } from './types.ts';

const at = '2026-01-01T00:00:00.000Z';
/** File signatures (PNG, GIF, JPEG, WebP, PDF, BMP) as base64, each followed by any bytes. */
const SIGNATURES = ['iVBORw0KGgo', 'R0lGODlh', '/9j/4AAQ', 'UklGRhoAAABXRUJQ', 'JVBERi0x', 'Qk06AAAA'];
const base64 = fc.oneof(
  fc.base64String({ maxLength: 24 }),
  fc.tuple(fc.constantFrom(...SIGNATURES), fc.base64String({ maxLength: 12 })).map(
    ([head, tail]) =>
      // Whole 4-character groups, so the head decodes as the signature it is.
      `${head}${'A'.repeat((4 - (head.length % 4)) % 4)}${tail}`,
  ),
);
const mediaType = fc.oneof(
  fc.constantFrom(
    ...ANTHROPIC_IMAGE_TYPES,
    'image/jpg',
    'IMAGE/PNG',
    'image/*',
    'image/bmp',
    'image/heic',
    'image/svg+xml',
    'application/pdf',
    'text/plain',
    'text/markdown; charset=utf-8',
    'application/json',
    'application/octet-stream',
    'audio/mpeg',
    'video/mp4',
    '',
  ),
  fc.string({ maxLength: 12 }),
);
const url = fc.oneof(
  fc.constantFrom('https://example.com/a', 'HTTP://example.com/b.pdf', 'gs://bucket/c', 's3://d', 'file-abc'),
  base64.map((data) => `data:image/png;base64,${data}`),
);
const attachment: fc.Arbitrary<AttachmentPart> = fc.record(
  {
    type: fc.constant('attachment' as const),
    kind: fc.constantFrom('image' as const, 'file' as const),
    mediaType,
    data: base64,
    url,
    filename: fc.constantFrom('a.png', 'report.pdf', 'notes.md'),
  },
  { requiredKeys: ['type', 'kind', 'mediaType'] },
);

const HTTP = /^https?:\/\//i;
const isStandIn = (block: { type: string; text?: string }): boolean =>
  block.type === 'text' && /^\[(image|file): /.test(block.text ?? '');

/** What is wrong with a block as Anthropic reads it, or undefined when nothing is. */
function fault(value: object): string | undefined {
  const block = value as Record<string, unknown>;
  const source = block.source as Record<string, unknown> | undefined;
  if (block.type === 'text') return isStandIn(block as { type: string }) ? undefined : 'not a stand-in';
  if (block.type === 'image') {
    if (source?.type === 'base64')
      return (ANTHROPIC_IMAGE_TYPES as readonly unknown[]).includes(source.media_type)
        ? undefined
        : 'image type';
    if (source?.type === 'url') return HTTP.test(String(source.url)) ? undefined : 'image URL';
    return 'image source';
  }
  if (block.type === 'document') {
    if (source?.type === 'base64')
      return source.media_type === 'application/pdf' ? undefined : 'document type';
    if (source?.type === 'text') return source.media_type === 'text/plain' ? undefined : 'text type';
    if (source?.type === 'url') return HTTP.test(String(source.url)) ? undefined : 'document URL';
    return 'document source';
  }
  return `block ${String(block.type)}`;
}

describe('toAnthropic sends attachments only as Anthropic reads them (MSG-4, property)', () => {
  it('an image, a PDF or text document, or a stand-in; with unsupportedAttachments: "error", a throw in place of each stand-in for content', () => {
    fc.assert(
      fc.property(fc.array(attachment, { minLength: 1, maxLength: 4 }), (parts) => {
        const messages: Message[] = [{ id: 'u', role: 'user', createdAt: at, parts }];
        const blocks = toAnthropic(messages).messages[0]?.content;
        if (!Array.isArray(blocks)) throw new Error('expected blocks');
        expect(blocks).toHaveLength(parts.length);
        for (const block of blocks) expect(fault(block)).toBeUndefined();

        const standsInForContent = blocks.some(
          (block, i) => isStandIn(block) && (parts[i]?.data !== undefined || parts[i]?.url !== undefined),
        );
        let strict: unknown;
        try {
          strict = toAnthropic(messages, { unsupportedAttachments: 'error' }).messages[0]?.content;
        } catch (error) {
          strict = error;
        }
        if (standsInForContent) {
          expect(ChatfoldError.isInstance(strict) && strict.code).toBe('E_INVALID_MESSAGE');
        } else {
          expect(strict).toEqual(blocks);
        }
      }),
      { numRuns: 300 },
    );
  });
});
