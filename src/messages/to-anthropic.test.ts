import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { mcpTurns, serverToolTurns } from '../../test/fixtures/converters/anthropic-server-tools.ts';
import { caughtError } from '../test/caught-error.ts';
import { fromAnthropic, toAnthropic } from './anthropic.ts';
import { textToBase64 } from './attachment-data.ts';
import type { AttachmentPart, JsonValue, Message, Part } from './types.ts';

const at = '2026-01-01T00:00:00.000Z';
const user = (...parts: Part[]): Message => ({ id: 'u', role: 'user', createdAt: at, parts });
/** The blocks `toAnthropic` makes of one user message. */
const blocksOf = (parts: Part[], options: Parameters<typeof toAnthropic>[1] = {}) =>
  toAnthropic([user(...parts)], options).messages[0]?.content;
const attachment = (
  fields: Omit<AttachmentPart, 'type' | 'kind'> & { kind?: 'image' | 'file' },
): AttachmentPart => ({
  type: 'attachment',
  kind: 'image',
  ...fields,
});

// Real file signatures: a 1×1 PNG, GIF and WebP, a JPEG header, a PDF header.
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const GIF = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';
const WEBP = 'UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==';
const JPEG = '/9j/4AAQSkZJRgABAQAAAQABAAD';
const PDF = 'JVBERi0xLjcKJeLjz9MK';
const BMP = 'Qk06AAAAAAA=';

describe('toAnthropic sends images only as JPEG, PNG, GIF or WebP (MSG-2, MSG-4)', () => {
  it('reads the type from the bytes when the label is generic, an alias or wrong', () => {
    const cases: [Partial<AttachmentPart>, string][] = [
      [{ mediaType: 'image/png', data: PNG }, 'image/png'],
      [{ mediaType: 'image/*', data: GIF }, 'image/gif'],
      [{ kind: 'file', mediaType: 'application/octet-stream', data: WEBP }, 'image/webp'],
      [{ mediaType: 'image/png', data: JPEG }, 'image/jpeg'],
      // Bytes that say nothing (cut short): the label, normalised.
      [{ mediaType: 'IMAGE/JPG', data: 'AAAA' }, 'image/jpeg'],
      [{ mediaType: 'image/webp; q=1', data: 'AAAA' }, 'image/webp'],
    ];
    for (const [fields, mediaType] of cases) {
      const data = fields.data as string;
      expect(blocksOf([attachment({ mediaType: '', ...fields })])).toEqual([
        { type: 'image', source: { type: 'base64', media_type: mediaType, data } },
      ]);
    }
  });

  it('sends a base64 data: URL inline, an https URL by URL', () => {
    expect(blocksOf([attachment({ mediaType: 'image/*', url: `data:image/png;base64,${PNG}` })])).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
    ]);
    expect(blocksOf([attachment({ mediaType: 'image/*', url: 'https://example.com/cat.jpg' })])).toEqual([
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
  });
});

describe('toAnthropic sends documents as PDF or plain text (MSG-2)', () => {
  it('PDF inline or by URL, text types decoded as text/plain, the filename as title', () => {
    expect(
      blocksOf([
        attachment({ kind: 'file', mediaType: 'application/pdf', data: PDF, filename: 'report.pdf' }),
        attachment({ kind: 'file', mediaType: 'application/pdf', url: 'https://example.com/paper.pdf' }),
        attachment({ kind: 'file', mediaType: 'text/markdown', data: textToBase64('# Notes\n- café') }),
        attachment({ kind: 'file', mediaType: 'application/json', data: textToBase64('{"a":1}') }),
        // Bytes say PDF, the label does not.
        attachment({ kind: 'file', mediaType: 'application/octet-stream', data: PDF }),
      ]),
    ).toEqual([
      {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: PDF },
        title: 'report.pdf',
      },
      { type: 'document', source: { type: 'url', url: 'https://example.com/paper.pdf' } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: '# Notes\n- café' } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: '{"a":1}' } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } },
    ]);
  });

  it('text data that is not base64 is E_INVALID_MESSAGE naming the part', () => {
    const caught = caughtError(() =>
      blocksOf([
        { type: 'text', text: 'see' },
        attachment({ kind: 'file', mediaType: 'text/plain', data: '%%%' }),
      ]),
    );
    expect(caught.code).toBe('E_INVALID_MESSAGE');
    expect(caught.message).toBe('toAnthropic: messages[0].parts[1].data: expected base64, received "%%%"');
  });
});

describe('what Anthropic cannot read: a text stand-in, or E_INVALID_MESSAGE when asked (MSG-4)', () => {
  const unreadable: [AttachmentPart, string, string][] = [
    [
      attachment({ mediaType: 'image/bmp', data: BMP, size: 8, filename: 'scan.bmp' }),
      '[image: scan.bmp, image/bmp, 8 bytes]',
      'Anthropic reads images as image/jpeg, image/png, image/gif, image/webp, received image/bmp',
    ],
    [
      attachment({ mediaType: 'image/heic', data: 'AAAAGGZ0eXBoZWlj' }),
      '[image: image/heic]',
      'Anthropic reads images as image/jpeg, image/png, image/gif, image/webp, received image/heic',
    ],
    [
      attachment({ mediaType: 'image/svg+xml', url: 'https://example.com/logo.svg' }),
      '[image: image/svg+xml, https://example.com/logo.svg]',
      'Anthropic reads images as image/jpeg, image/png, image/gif, image/webp, received image/svg+xml',
    ],
    [
      attachment({ kind: 'file', mediaType: 'audio/mpeg', data: 'SUQzBAA=', size: 5 }),
      '[file: audio/mpeg, 5 bytes]',
      'Anthropic reads documents as application/pdf or text, received audio/mpeg',
    ],
    [
      attachment({ mediaType: 'image/png', url: 'gs://bucket/cat.png' }),
      '[image: image/png, gs://bucket/cat.png]',
      'Anthropic fetches only http(s) URLs, received "gs://bucket/cat.png"',
    ],
    [
      attachment({ kind: 'file', mediaType: 'text/csv', url: 'https://example.com/data.csv' }),
      '[file: text/csv, https://example.com/data.csv]',
      'Anthropic fetches only images and PDFs by URL, received text/csv at https://example.com/data.csv',
    ],
  ];

  it.each(unreadable)('%o → %s', (part, placeholder, reason) => {
    expect(blocksOf([part])).toEqual([{ type: 'text', text: placeholder }]);
    const caught = caughtError(() => blocksOf([part], { unsupportedAttachments: 'error' }));
    expect(caught.code).toBe('E_INVALID_MESSAGE');
    expect(caught.details).toMatchObject({ where: 'messages[0].parts[0]', mediaType: part.mediaType });
    expect(caught.message).toBe(
      `toAnthropic: messages[0].parts[0]: ${reason}; convert it first, or pass { unsupportedAttachments: 'placeholder' } to send a text stand-in`,
    );
  });

  it('names a tool result attachment by its path; a stand-in keeps the cache breakpoint', () => {
    const bmp = attachment({
      mediaType: 'image/bmp',
      data: BMP,
      providerMetadata: { anthropic: { extra: { cache_control: { type: 'ephemeral' } } } },
    });
    const messages: Message[] = [
      { id: 'u', role: 'user', createdAt: at, parts: [{ type: 'text', text: 'Screenshot?' }] },
      {
        id: 'a',
        role: 'assistant',
        createdAt: at,
        parts: [{ type: 'tool-call', id: 'c1', name: 'screenshot', arguments: '{}' }],
      },
      {
        id: 't',
        role: 'tool',
        createdAt: at,
        parts: [{ type: 'tool-result', callId: 'c1', content: [{ type: 'text', text: 'taken' }, bmp] }],
      },
    ];
    expect(toAnthropic(messages).messages[2]?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'c1',
        content: [
          { type: 'text', text: 'taken' },
          { type: 'text', text: '[image: image/bmp]', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
    const caught = caughtError(() => toAnthropic(messages, { unsupportedAttachments: 'error' }));
    expect(caught.details).toMatchObject({ where: 'messages[2].parts[0].content[1]' });
  });

  it('metadata-only attachments are stand-ins in both modes; the system prompt holds only text', () => {
    const metadataOnly = attachment({
      kind: 'file',
      mediaType: 'application/pdf',
      filename: 'a.pdf',
      size: 9,
    });
    for (const unsupportedAttachments of ['placeholder', 'error'] as const) {
      expect(blocksOf([metadataOnly], { unsupportedAttachments })).toEqual([
        { type: 'text', text: '[file: a.pdf, application/pdf, 9 bytes]' },
      ]);
    }
    const system: Message = {
      id: 's',
      role: 'system',
      createdAt: at,
      parts: [
        { type: 'text', text: 'Follow the guide.' },
        attachment({ kind: 'file', mediaType: 'application/pdf', data: PDF, filename: 'guide.pdf' }),
      ],
    };
    expect(toAnthropic([system, user({ type: 'text', text: 'Hi' })]).system).toEqual([
      { type: 'text', text: 'Follow the guide.' },
      { type: 'text', text: '[file: guide.pdf, application/pdf]' },
    ]);
    const caught = caughtError(() =>
      toAnthropic([system, user({ type: 'text', text: 'Hi' })], { unsupportedAttachments: 'error' }),
    );
    expect(caught.message).toMatch(
      /^toAnthropic: messages\[0\]\.parts\[1\]: Anthropic's system prompt holds only text;/,
    );
  });
});

describe('server-tool blocks carried from Anthropic go back in their exact request shapes (MSG-2)', () => {
  it('round-trips every server tool, search results and container uploads from the docs', () => {
    const messages = fromAnthropic({ messages: serverToolTurns });
    expect(toAnthropic(messages).messages).toEqual(serverToolTurns);
  });

  it('MCP connector blocks need api: "beta", and then go back as they came', () => {
    const messages = fromAnthropic({ messages: mcpTurns });
    expect(toAnthropic(messages, { api: 'beta' }).messages).toEqual(mcpTurns);
    const caught = caughtError(() => toAnthropic(messages));
    expect(caught.code).toBe('E_INVALID_MESSAGE');
    expect(caught.message).toBe(
      "toAnthropic: messages[1].providerMetadata.anthropic.opaque[0].value: mcp_tool_use blocks are taken only by the beta Messages API (MCP connector); convert with toAnthropic(messages, { api: 'beta' }) and send with client.beta.messages.create",
    );
  });

  /** `serverToolTurns` with the assistant turn's block `index` replaced. */
  const withBlock = (index: number, block: JsonValue) => {
    const [first, assistant, ...rest] = serverToolTurns as [Anthropic.MessageParam, Anthropic.MessageParam];
    const content = [...(assistant.content as Anthropic.ContentBlockParam[])];
    content[index] = block as unknown as Anthropic.ContentBlockParam;
    return fromAnthropic({
      messages: [first, { role: 'assistant', content }, ...rest],
    });
  };

  it('a carried block the API would refuse is E_INVALID_MESSAGE naming the field', () => {
    const cases: [number, JsonValue, string][] = [
      [
        6,
        {
          type: 'web_search_tool_result',
          tool_use_id: 'srvtoolu_1',
          content: [{ type: 'web_search_result', title: 'T', encrypted_content: 'E' }],
        },
        'messages[1].providerMetadata.anthropic.opaque[5].value.content[0].url: expected string, received nothing (the field is missing)',
      ],
      [
        1,
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_fetch', input: 'https://example.com' },
        'messages[1].providerMetadata.anthropic.opaque[0].value.input: expected record, received string "https://example.com"',
      ],
      [
        8,
        {
          type: 'bash_code_execution_tool_result',
          tool_use_id: 'srvtoolu_1',
          content: { type: 'bash_code_execution_result', stdout: '', stderr: '', return_code: 0 },
        },
        'messages[1].providerMetadata.anthropic.opaque[7].value.content.content: expected array, received nothing (the field is missing)',
      ],
    ];
    for (const [index, block, where] of cases) {
      const caught = caughtError(() => toAnthropic(withBlock(index, block)));
      expect(caught.code, where).toBe('E_INVALID_MESSAGE');
      expect(caught.message).toBe(
        `toAnthropic: ${where} (a block carried in providerMetadata.anthropic; the API would refuse it)`,
      );
    }
  });

  it('takes error codes and tool names newer than this list (the API reads back what it wrote)', () => {
    const newer = {
      type: 'web_fetch_tool_result',
      tool_use_id: 'srvtoolu_a93jad',
      content: { type: 'web_fetch_tool_result_error', error_code: 'robots_disallowed' },
    };
    const request = toAnthropic(withBlock(4, newer));
    expect(request.messages[1]?.content.at(4)).toEqual(newer);
  });

  it('only search results may sit in a tool result', () => {
    const messages = fromAnthropic({
      messages: [
        { role: 'user', content: 'Search?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'search', input: {} }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              content: [{ type: 'container_upload', file_id: 'file_1' } as never],
            },
          ],
        },
      ],
    });
    const caught = caughtError(() => toAnthropic(messages));
    expect(caught.message).toBe(
      'toAnthropic: messages[2].parts[0].providerMetadata.anthropic.opaque[0].value.type: unsupported carried Anthropic block "container_upload"; expected one of search_result (a block carried in providerMetadata.anthropic; the API would refuse it)',
    );
  });

  it('a content document source is checked too (its images in types Anthropic reads)', () => {
    const document = (mediaType: string) =>
      fromAnthropic({
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'document',
                source: {
                  type: 'content',
                  content: [
                    { type: 'text', text: 'Figure 1' },
                    { type: 'image', source: { type: 'base64', media_type: mediaType, data: PNG } },
                  ],
                },
                title: 'Report',
              } as never,
            ],
          },
        ],
      });
    expect(toAnthropic(document('image/png')).messages[0]?.content).toEqual([
      {
        type: 'document',
        source: {
          type: 'content',
          content: [
            { type: 'text', text: 'Figure 1' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          ],
        },
        title: 'Report',
      },
    ]);
    const caught = caughtError(() => toAnthropic(document('image/bmp')));
    expect(caught.details).toMatchObject({
      where: 'messages[0].parts[0].providerMetadata.anthropic.content[1].source.media_type',
    });
  });
});

describe('toAnthropic options (MSG-4)', () => {
  it('refuses unknown values with E_INVALID_OPTIONS naming the option', () => {
    const messages = [user({ type: 'text', text: 'Hi' })];
    const api = caughtError(() => toAnthropic(messages, { api: 'vertex' as 'beta' }));
    expect(api.code).toBe('E_INVALID_OPTIONS');
    expect(api.message).toBe(`toAnthropic: options.api must be one of 'messages', 'beta', received "vertex"`);
    const drop = caughtError(() => toAnthropic(messages, { unsupportedAttachments: 'drop' as 'error' }));
    expect(drop.details).toMatchObject({ option: 'unsupportedAttachments' });
  });
});
