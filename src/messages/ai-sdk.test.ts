import { readFileSync } from 'node:fs';
import { type ModelMessage, modelMessageSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { buildConversation } from '../test/build-conversation.ts';
import { caughtError } from '../test/caught-error.ts';
import { type AiSdkMessage, type AiSdkMessageInput, fromAiSdk, toAiSdk } from './ai-sdk.ts';
import { fromAnthropic, toAnthropic } from './anthropic.ts';
import type { Message } from './types.ts';

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../../test/fixtures/converters/${name}`, import.meta.url), 'utf8')) as T;
const toolMessages = fixture<AiSdkMessage[]>('ai-sdk-tool-messages.json');
const docs = fixture<Record<string, AiSdkMessageInput[]>>('ai-sdk-docs.json');
const docsV7 = fixture<Record<string, ModelMessage[]>>('ai-sdk-v7-docs.json');
/** AI SDK 7's own runtime schema: what `generateText` accepts as `messages`. */
const isValidV7 = (messages: unknown): boolean => modelMessageSchema.array().safeParse(messages).success;
/** Stands in for `fs.readFileSync('./data/…')` of the documented examples: real bytes, a PNG signature. */
const bytes = () => new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const at = '2026-01-01T00:00:00.000Z';

const error = caughtError;

describe('fromAiSdk / toAiSdk round trips (MSG-2)', () => {
  it.each([['toolMessages', toolMessages], ...Object.entries(docs)])(
    'gives back the documented %s unchanged',
    (_name, messages) => {
      expect(toAiSdk(fromAiSdk(messages))).toEqual(messages);
    },
  );

  it('gives back binary content as bytes (the documented fs.readFileSync examples)', () => {
    const messages: ModelMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'How many calories are in this block of cheese?' },
          { type: 'image', image: bytes() },
          { type: 'file', mediaType: 'application/pdf', data: bytes(), filename: 'example.pdf' },
          { type: 'file', mediaType: 'audio/mpeg', data: new URL('https://example.com/galileo.mp3') },
        ],
      },
      { role: 'assistant', content: [{ type: 'file', mediaType: 'image/png', data: bytes().buffer }] },
    ];
    const neutral = fromAiSdk(messages);
    expect(neutral[0]?.parts[1]).toMatchObject({
      type: 'attachment',
      kind: 'image',
      mediaType: 'image/*',
      data: 'iVBORw0KGgo=',
      size: 8,
    });
    expect(neutral[0]?.parts[3]).toMatchObject({
      url: 'https://example.com/galileo.mp3',
      mediaType: 'audio/mpeg',
    });
    expect(toAiSdk(neutral)).toEqual(messages);
  });

  it('gives back v7 tagged file data and v6 approval parts', () => {
    const messages = [
      {
        role: 'user',
        content: [
          { type: 'file', mediaType: 'image', data: { type: 'data', data: bytes() } },
          {
            type: 'file',
            mediaType: 'application/pdf',
            data: { type: 'url', url: new URL('https://example.com/a.pdf') },
          },
          {
            type: 'file',
            mediaType: 'application/pdf',
            data: { type: 'reference', reference: { openai: 'file-abc' } },
          },
          { type: 'file', mediaType: 'text/plain', data: { type: 'text', text: 'hello' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'delete_file', input: { path: 'a.txt' } },
          { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 'c1' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-approval-response', approvalId: 'ap1', approved: false, reason: 'keep it' },
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'delete_file',
            output: { type: 'execution-denied', reason: 'keep it' },
          },
        ],
      },
    ] as unknown as AiSdkMessage[];
    const neutral = fromAiSdk(messages);
    expect(neutral[0]?.parts.map((p) => p.type === 'attachment' && [p.kind, p.mediaType])).toEqual([
      ['image', 'image/*'],
      ['file', 'application/pdf'],
      ['file', 'application/pdf'],
      ['file', 'text/plain'],
    ]);
    expect(neutral[1]?.parts.map((p) => p.type)).toEqual(['tool-call']);
    expect(neutral[2]?.parts).toMatchObject([
      { type: 'tool-result', callId: 'c1', isError: true, content: [{ text: 'keep it' }] },
    ]);
    expect(toAiSdk(neutral)).toEqual(messages);
  });
});

describe('AI SDK 7 ModelMessage (MSG-2)', () => {
  it.each(Object.entries(docsV7))(
    'gives back the documented v7 %s unchanged, valid for ai 7',
    (_n, messages) => {
      const back: ModelMessage[] = toAiSdk(fromAiSdk(messages));
      expect(back).toEqual(messages);
      expect(isValidV7(back)).toBe(true);
    },
  );

  it('reads v7 file parts with a top-level media type as images and files', () => {
    const neutral = fromAiSdk([...(docsV7.partLevelProviderOptions ?? []), ...(docsV7.base64Image ?? [])]);
    expect(neutral[0]?.parts[1]).toMatchObject({
      type: 'attachment',
      kind: 'image',
      mediaType: 'image/*',
      url: 'https://github.com/vercel/ai/blob/main/examples/ai-functions/data/comic-cat.png?raw=true',
    });
    expect(neutral[1]?.parts[1]).toMatchObject({ kind: 'image', data: 'iVBORw0KGgo=', size: 8 });
  });

  it('carries custom, reasoning-file and approval parts verbatim, bytes and URLs included', () => {
    // Shapes of v7's CustomPart, ReasoningFilePart, ToolApprovalRequest and ToolApprovalResponse.
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Delete temp.txt, then draw the result.' },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Sketching first.' },
          { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: bytes() } },
          { type: 'reasoning-file', mediaType: 'image/png', data: new URL('https://example.com/sketch.png') },
          {
            type: 'custom',
            kind: 'openai.compaction',
            providerOptions: { openai: { itemId: 'cmp_1', encryptedContent: 'gAAAA' } },
          },
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'deleteFile', input: { path: 'temp.txt' } },
          {
            type: 'tool-approval-request',
            approvalId: 'approval-1',
            toolCallId: 'call_1',
            reason: 'deletes a file',
            isAutomatic: false,
          },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-approval-response', approvalId: 'approval-1', approved: false, reason: 'keep it' },
          {
            type: 'tool-result',
            toolCallId: 'call_1',
            toolName: 'deleteFile',
            output: { type: 'execution-denied', reason: 'keep it' },
          },
        ],
      },
    ];
    const neutral = fromAiSdk(messages);
    expect(neutral[1]?.parts.map((part) => part.type)).toEqual(['reasoning', 'tool-call']);
    // Stored as JSON (a store can persist it) and still given back with bytes and URL objects.
    const stored = JSON.parse(JSON.stringify(neutral)) as typeof neutral;
    const back = toAiSdk(stored);
    expect(back).toEqual(messages);
    const assistant = back[1]?.content;
    if (!Array.isArray(assistant)) throw new Error('expected assistant parts');
    const [, tagged, url] = assistant as { data?: unknown }[];
    expect((tagged?.data as { data?: unknown } | undefined)?.data).toBeInstanceOf(Uint8Array);
    expect(url?.data).toBeInstanceOf(URL);
    expect(isValidV7(back)).toBe(true);
  });

  it('keeps v7 tool output items: provider references, tagged files, provider options on items', () => {
    const messages: ModelMessage[] = [
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'render', input: {} }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'render',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: 'Rendered:' },
                { type: 'file-reference', providerReference: { openai: 'file-abc', anthropic: 'file_01' } },
                {
                  type: 'file-data',
                  data: 'iVBORw0KGgo=',
                  mediaType: 'image/png',
                  providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
                },
                {
                  type: 'file',
                  mediaType: 'image',
                  data: {
                    type: 'url',
                    url: new URL('gs://bucket/render.png'),
                    originalUrl: 'gs://bucket/render.png',
                  },
                },
                { type: 'custom', providerOptions: { anthropic: { type: 'search_result' } } },
              ],
            },
          },
        ],
      },
    ];
    const neutral = fromAiSdk(messages);
    const result = neutral[1]?.parts[0];
    expect(result?.type === 'tool-result' && result.content.map((part) => part.type)).toEqual([
      'text',
      'attachment',
      'attachment',
      'attachment',
    ]);
    const back = toAiSdk(neutral);
    expect(back).toEqual(messages);
    expect(isValidV7(back)).toBe(true);
  });

  it('writes tagged URLs as URL objects, as ai 7 requires', () => {
    const input = [
      {
        role: 'user',
        content: [
          {
            type: 'file',
            mediaType: 'application/pdf',
            data: { type: 'url', url: 'https://example.com/a.pdf' },
          },
        ],
      },
    ] as unknown as AiSdkMessageInput[];
    const back = toAiSdk(fromAiSdk(input));
    expect(back[0]?.content).toEqual([
      {
        type: 'file',
        mediaType: 'application/pdf',
        data: { type: 'url', url: new URL('https://example.com/a.pdf') },
      },
    ]);
    expect(isValidV7(back)).toBe(true);
  });

  it('gives back the v5 media item as it came (ai 7 no longer accepts it)', () => {
    const back = toAiSdk(fromAiSdk(docs.multiModalToolResults ?? []));
    expect(JSON.stringify(back)).toContain('"type":"media"');
    expect(isValidV7(back)).toBe(false);
  });
});

describe('fromAiSdk mapping (MSG-1, MSG-2)', () => {
  it('turns outputs into result content: json as its JSON text, content items as text and attachments', () => {
    const neutral = fromAiSdk([
      ...toolMessages.slice(1, 2),
      ...(docs.multiModalToolResults as AiSdkMessage[]),
    ]);
    expect(neutral[1]?.parts).toMatchObject([
      {
        callId: '12345',
        toolName: 'get-nutrition-data',
        content: [
          { type: 'text', text: '{"name":"Cheese, roquefort","calories":369,"fat":31,"protein":22}' },
        ],
      },
      {
        callId: '12345',
        content: [
          { type: 'text', text: 'Here is an image of the nutrition data for the cheese:' },
          { type: 'attachment', kind: 'image', mediaType: 'image/png', size: 8 },
        ],
      },
    ]);
  });

  it('moves Anthropic and Google signatures out of providerOptions so other converters can use them', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: [
          {
            type: 'reasoning',
            text: 'Need the tool.',
            providerOptions: { anthropic: { signature: 'EqQBCgIYAhIM' }, openai: { itemId: 'rs_1' } },
          },
          { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: 'EmwKAhgB' } } },
          {
            type: 'tool-call',
            toolCallId: 'fc_1',
            toolName: 'get_weather',
            input: { city: 'Paris' },
            providerOptions: { google: { thoughtSignature: 'c2ln' } },
          },
        ],
      },
    ];
    const neutral = fromAiSdk(messages);
    expect(neutral[1]?.parts).toMatchObject([
      {
        type: 'reasoning',
        signature: 'EqQBCgIYAhIM',
        providerMetadata: { aiSdk: { providerOptions: { openai: { itemId: 'rs_1' } } } },
      },
      { type: 'reasoning', redactedData: 'EmwKAhgB' },
      { type: 'tool-call', providerMetadata: { gemini: { thoughtSignature: 'c2ln' } } },
    ]);
    expect(toAnthropic(neutral).messages[1]?.content).toEqual([
      { type: 'thinking', thinking: 'Need the tool.', signature: 'EqQBCgIYAhIM' },
      { type: 'redacted_thinking', data: 'EmwKAhgB' },
      { type: 'tool_use', id: 'fc_1', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect(toAiSdk(neutral)).toEqual(messages);
    // And the other way: Anthropic thinking reaches the AI SDK where its Anthropic provider reads it.
    const fromClaude = toAiSdk(
      fromAnthropic({
        messages: [{ role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's' }] }],
      }),
    );
    expect(fromClaude[0]?.content).toEqual([
      { type: 'reasoning', text: 't', providerOptions: { anthropic: { signature: 's' } } },
    ]);
  });
});

describe('toAiSdk from other formats (MSG-2)', () => {
  it('writes a system message per text part, tool names from the call, errors as error-text', () => {
    const messages: Message[] = [
      {
        id: 's',
        role: 'system',
        createdAt: at,
        parts: [
          { type: 'text', text: 'You are terse.' },
          { type: 'text', text: 'Cite sources.' },
        ],
      },
      ...buildConversation()
        .user('go')
        .toolRound([{ name: 'search', args: { q: 'x' }, result: 'no hits', isError: true }])
        .build(),
    ];
    const withoutName = messages.map((m) =>
      m.role === 'tool'
        ? { ...m, parts: m.parts.map((p) => (p.type === 'tool-result' ? { ...p, toolName: undefined } : p)) }
        : m,
    ) as Message[];
    expect(toAiSdk(withoutName)).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'system', content: 'Cite sources.' },
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'call_0', toolName: 'search', input: { q: 'x' } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_0',
            toolName: 'search',
            output: { type: 'error-text', value: 'no hits' },
          },
        ],
      },
    ]);
  });

  it('sends a json output whose text a strategy replaced as text', () => {
    const [call, result] = fromAiSdk(toolMessages.slice(1));
    const part = result?.parts[0];
    if (call === undefined || result === undefined || part?.type !== 'tool-result')
      throw new Error('fixture changed');
    const masked: Message = {
      ...result,
      parts: [{ ...part, content: [{ type: 'text', text: '[output masked: 64 chars]' }] }],
    };
    expect(toAiSdk([call, masked])[1]?.content).toEqual([
      {
        type: 'tool-result',
        toolCallId: '12345',
        toolName: 'get-nutrition-data',
        output: { type: 'text', value: '[output masked: 64 chars]' },
      },
    ]);
  });
});

describe('fromAiSdk rejects bad input with typed errors naming the path (MSG-4)', () => {
  it('unknown role', () => {
    const caught = error(() => fromAiSdk([{ role: 'developer', content: 'x' }] as never));
    expect(caught.code).toBe('E_UNKNOWN_ROLE');
    expect(caught.message).toBe(
      'messages[0].role: unknown role "developer"; expected one of system, user, assistant, tool',
    );
  });

  it('bad outputs, parts in the wrong role, missing ids, non-JSON input', () => {
    const cases: [unknown, string][] = [
      [
        [
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: 'c',
                toolName: 'f',
                output: { type: 'yaml', value: 'a: 1' },
              },
            ],
          },
        ],
        'messages[0].content[0].output.type: unsupported AI SDK part "yaml"; expected one of text, error-text, json, error-json, execution-denied, content',
      ],
      [
        [{ role: 'user', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'f', input: {} }] }],
        'messages[0].content[0].type: unsupported AI SDK part "tool-call"; expected one of text, image, file',
      ],
      [
        [{ role: 'assistant', content: [{ type: 'tool-call', toolName: 'f', input: {} }] }],
        'messages[0].content[0].toolCallId: expected string, received nothing (the field is missing)',
      ],
      [
        [{ role: 'system', content: [{ type: 'text', text: 'x' }] }],
        'messages[0].content: expected string, received array',
      ],
    ];
    for (const [input, message] of cases) {
      const caught = error(() => fromAiSdk(input as never));
      expect(caught.code, message).toBe('E_INVALID_MESSAGE');
      expect(caught.message).toBe(message);
    }
  });
});
