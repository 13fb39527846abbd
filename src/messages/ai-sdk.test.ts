import { readFileSync } from 'node:fs';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { type AiSdkMessage, fromAiSdk, toAiSdk } from './ai-sdk.ts';
import { fromAnthropic, toAnthropic } from './anthropic.ts';
import type { Message } from './types.ts';

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../../test/fixtures/converters/${name}`, import.meta.url), 'utf8')) as T;
const toolMessages = fixture<AiSdkMessage[]>('ai-sdk-tool-messages.json');
const docs = fixture<Record<string, AiSdkMessage[]>>('ai-sdk-docs.json');
/** Stands in for `fs.readFileSync('./data/…')` of the documented examples: real bytes, a PNG signature. */
const bytes = () => new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const at = '2026-01-01T00:00:00.000Z';

const error = (run: () => unknown): ChatfoldError => {
  try {
    run();
  } catch (caught) {
    if (ChatfoldError.isInstance(caught)) return caught;
    throw caught;
  }
  throw new Error('expected a ChatfoldError');
};

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
