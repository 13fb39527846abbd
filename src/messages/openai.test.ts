import { readFileSync } from 'node:fs';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { fromOpenAI, type OpenAIMessage, toOpenAI } from './openai.ts';
import type { Message } from './types.ts';

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../../test/fixtures/converters/${name}`, import.meta.url), 'utf8')) as T;
const reference = fixture<Record<string, OpenAIMessage[]>>('openai-api-reference.json');
const swe = fixture<OpenAIMessage[]>('swe-agent/marshmallow-1867.openai.excerpt.json');
const now = () => new Date('2026-01-01T00:00:00Z');

const codeOf = (run: () => unknown): ChatfoldError => {
  try {
    run();
  } catch (error) {
    if (ChatfoldError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ChatfoldError');
};

describe('fromOpenAI / toOpenAI round trips (MSG-2)', () => {
  it.each(Object.keys(reference))('gives back the API reference example %s unchanged', (name) => {
    const messages = reference[name] as OpenAIMessage[];
    expect(toOpenAI(fromOpenAI(messages))).toEqual(messages);
  });

  it('gives back a real SWE-agent history byte for byte (reused call ids, odd spacing in arguments)', () => {
    const messages = fromOpenAI(swe, { now });
    expect(messages).toHaveLength(16);
    expect(toOpenAI(messages)).toEqual(swe);
    const spaced = messages[10]?.parts.find((part) => part.type === 'tool-call');
    expect(spaced).toMatchObject({ name: 'insert' });
    expect(spaced?.type === 'tool-call' && spaced.arguments.startsWith('{ "text": ')).toBe(true);
    // The reused id names each result after the call just before it.
    expect(
      messages.map((m) => (m.parts[0]?.type === 'tool-result' ? m.parts[0].toolName : undefined))[15],
    ).toBe('bash');
  });

  it('is deterministic: converting twice gives the same ids', () => {
    expect(fromOpenAI(swe, { now }).map((m) => m.id)).toEqual(fromOpenAI(swe, { now }).map((m) => m.id));
  });
});

describe('fromOpenAI mapping (MSG-1, MSG-2)', () => {
  it('maps developer to a marked system message, keeps response-only keys, reads image URLs', () => {
    const [developer, user, assistant] = fromOpenAI(reference.default as OpenAIMessage[]);
    expect(developer).toMatchObject({
      role: 'system',
      parts: [{ type: 'text', text: 'You are a helpful assistant.' }],
    });
    expect(developer?.providerMetadata?.openai).toMatchObject({ role: 'developer' });
    expect(user?.parts).toEqual([{ type: 'text', text: 'Hello!' }]);
    expect(assistant?.parts).toEqual([{ type: 'text', text: 'Hello! How can I assist you today?' }]);
    const [image] = fromOpenAI(reference.imageInput as OpenAIMessage[]);
    expect(image?.parts[1]).toMatchObject({
      type: 'attachment',
      kind: 'image',
      mediaType: 'image/*',
      url: expect.stringContaining('Gfp-wisconsin-madison-the-nature-boardwalk.jpg'),
    });
  });

  it('keeps tool-call arguments as the exact JSON text, newlines included', () => {
    const [, assistant] = fromOpenAI(reference.functions as OpenAIMessage[]);
    expect(assistant?.parts).toEqual([
      {
        type: 'tool-call',
        id: 'call_abc123',
        name: 'get_current_weather',
        arguments: '{\n"location": "Boston, MA"\n}',
      },
    ]);
  });

  it('turns data-URL images, input_audio and file_data into attachments with decoded sizes', () => {
    const messages = fromOpenAI([
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
          { type: 'input_audio', input_audio: { data: 'SUQzBAAAAAAAI1RTU0U=', format: 'mp3' } },
          {
            type: 'file',
            file: { filename: 'draconomicon.pdf', file_data: 'data:application/pdf;base64,JVBERi0xLjQK' },
          },
          { type: 'file', file: { file_id: 'file-6F2ksmvXxt4VdoqmHRw6kL' } },
        ],
      },
    ]);
    expect(messages[0]?.parts).toMatchObject([
      { type: 'attachment', kind: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=', size: 8 },
      { type: 'attachment', kind: 'file', mediaType: 'audio/mpeg', size: 14 },
      {
        type: 'attachment',
        kind: 'file',
        mediaType: 'application/pdf',
        filename: 'draconomicon.pdf',
        size: 9,
      },
      { type: 'attachment', kind: 'file', mediaType: 'application/octet-stream' },
    ]);
    expect(toOpenAI(messages)[0]).toEqual({
      role: 'user',
      content: [
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
        { type: 'input_audio', input_audio: { data: 'SUQzBAAAAAAAI1RTU0U=', format: 'mp3' } },
        {
          type: 'file',
          file: { filename: 'draconomicon.pdf', file_data: 'data:application/pdf;base64,JVBERi0xLjQK' },
        },
        { type: 'file', file: { file_id: 'file-6F2ksmvXxt4VdoqmHRw6kL' } },
      ],
    });
  });

  it('reads refusals, custom tool calls and reasoning_content, and writes them back', () => {
    const input: OpenAIMessage[] = [
      { role: 'user', content: 'Apply the patch' },
      {
        role: 'assistant',
        content: [{ type: 'refusal', refusal: 'I cannot run that.' }],
        refusal: 'Refused.',
        reasoning_content: 'The user wants a patch applied.',
        tool_calls: [
          { id: 'call_1', type: 'custom', custom: { name: 'apply_patch', input: '*** Begin Patch' } },
        ],
      },
    ];
    const messages = fromOpenAI(input);
    expect(messages[1]?.parts).toMatchObject([
      { type: 'reasoning', text: 'The user wants a patch applied.' },
      { type: 'text', text: 'I cannot run that.' },
      { type: 'text', text: 'Refused.' },
      { type: 'tool-call', id: 'call_1', name: 'apply_patch', arguments: '"*** Begin Patch"' },
    ]);
    expect(toOpenAI(messages)).toEqual(input);
    expect(toOpenAI(messages, { reasoning: 'omit' })[1]).not.toHaveProperty('reasoning_content');
  });

  it('gives a legacy function_call a deterministic id that its function message answers', () => {
    const input: OpenAIMessage[] = [
      { role: 'user', content: 'What is the weather like in Boston?' },
      {
        role: 'assistant',
        content: null,
        function_call: { name: 'get_current_weather', arguments: '{"location":"Boston"}' },
      },
      { role: 'function', name: 'get_current_weather', content: '{"temperature": "72"}' },
    ];
    const messages = fromOpenAI(input);
    const call = messages[1]?.parts[0];
    const result = messages[2]?.parts[0];
    expect(call?.type === 'tool-call' && result?.type === 'tool-result' && call.id === result.callId).toBe(
      true,
    );
    expect(result).toMatchObject({
      toolName: 'get_current_weather',
      content: [{ type: 'text', text: '{"temperature": "72"}' }],
    });
    expect(fromOpenAI(input)[1]?.parts[0]).toEqual(call);
    expect(toOpenAI(messages)).toEqual(input);
  });
});

describe('toOpenAI from other formats (MSG-2)', () => {
  it('writes one tool message per result, drops what Chat Completions cannot carry, and says so', () => {
    const messages: Message[] = [
      ...buildConversation()
        .user('check')
        .toolRound([
          { name: 'a', args: {}, result: 'one' },
          { name: 'b', args: {}, result: 'two', isError: true },
        ])
        .build(),
    ];
    const merged: Message = {
      id: 'tools',
      role: 'tool',
      createdAt: '2026-01-01T00:00:00.000Z',
      parts: [
        { type: 'tool-result', callId: 'call_0', content: [{ type: 'text', text: 'one' }] },
        {
          type: 'tool-result',
          callId: 'call_1',
          content: [
            { type: 'attachment', kind: 'image', mediaType: 'image/png', size: 8, data: 'iVBORw0KGgo=' },
          ],
          isError: true,
        },
      ],
    };
    const thinking: Message = {
      id: 'r',
      role: 'assistant',
      createdAt: '2026-01-01T00:00:00.000Z',
      parts: [
        { type: 'reasoning', text: 'hmm', signature: 'sig' },
        { type: 'text', text: 'done' },
      ],
    };
    const out = toOpenAI([...messages.slice(0, 2), merged, thinking]);
    expect(out).toEqual([
      { role: 'user', content: 'check' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_0', type: 'function', function: { name: 'a', arguments: '{}' } },
          { id: 'call_1', type: 'function', function: { name: 'b', arguments: '{}' } },
        ],
      },
      { role: 'tool', content: 'one', tool_call_id: 'call_0' },
      {
        role: 'tool',
        content: [{ type: 'text', text: '[image: image/png, 8 bytes]' }],
        tool_call_id: 'call_1',
      },
      { role: 'assistant', content: 'done' },
    ]);
    expect(toOpenAI([thinking], { reasoning: 'reasoning_content' })[0]).toMatchObject({
      reasoning_content: 'hmm',
    });
  });

  it('accepts the official SDK types and returns them', () => {
    const sdk: ChatCompletionMessageParam[] = [
      { role: 'developer', content: 'Be terse.' },
      { role: 'user', content: [{ type: 'text', text: 'Hi' }], name: 'alice' },
    ];
    const back: ChatCompletionMessageParam[] = toOpenAI(fromOpenAI(sdk));
    expect(back).toEqual(sdk);
  });
});

describe('fromOpenAI rejects bad input with typed errors naming the path (MSG-4)', () => {
  it('unknown role', () => {
    const error = codeOf(() => fromOpenAI([{ role: 'robot', content: 'x' } as never]));
    expect(error.code).toBe('E_UNKNOWN_ROLE');
    expect(error.message).toBe(
      'messages[0].role: unknown role "robot"; expected one of system, developer, user, assistant, tool, function',
    );
  });

  it('non-JSON tool arguments', () => {
    const error = codeOf(() =>
      fromOpenAI([
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } },
            { id: 'b', type: 'function', function: { name: 'f', arguments: '{"path": "a.ts"' } },
          ],
        },
      ]),
    );
    expect(error.code).toBe('E_INVALID_TOOL_ARGUMENTS');
    expect(error.message).toMatch(
      /^messages\[1\]\.tool_calls\[1\]\.function\.arguments: tool call arguments are not valid JSON/,
    );
  });

  it('null content where the API does not allow it, wrong types, missing fields, unknown parts', () => {
    const cases: [unknown, string][] = [
      [[{ role: 'user', content: null }], 'messages[0].content: expected string or array, received null'],
      [
        [{ role: 'tool', content: 'x', tool_call_id: 7 }],
        'messages[0].tool_call_id: expected string, received number',
      ],
      [
        [{ role: 'tool', content: 'x' }],
        'messages[0].tool_call_id: expected string, received nothing (the field is missing)',
      ],
      [
        [{ role: 'user', content: [{ type: 'video_url', video_url: 'x' }] }],
        'messages[0].content[0].type: unsupported OpenAI content part "video_url"; expected one of text, image_url, input_audio, file',
      ],
      [
        [
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: {} } }],
          },
        ],
        'messages[0].tool_calls[0].function.arguments: expected string, received object',
      ],
      [{ model: 'gpt-4.1' }, 'messages: expected array, received object'],
    ];
    for (const [input, message] of cases) {
      const error = codeOf(() => fromOpenAI(input as never));
      expect(error.code, message).toBe('E_INVALID_MESSAGE');
      expect(error.message).toBe(message);
    }
  });

  it('rejects an unknown reasoning option', () => {
    expect(codeOf(() => toOpenAI([], { reasoning: 'keep' as never })).code).toBe('E_INVALID_OPTIONS');
  });
});
