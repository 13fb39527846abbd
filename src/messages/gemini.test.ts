import { readFileSync } from 'node:fs';
import type { Content } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { buildConversation } from '../test/build-conversation.ts';
import { caughtError } from '../test/caught-error.ts';
import { fromGemini, type GeminiRequest, toGemini } from './gemini.ts';
import type { Message } from './types.ts';

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../../test/fixtures/converters/${name}`, import.meta.url), 'utf8')) as T;
const parallel = fixture<GeminiRequest>('gemini-function-calling.json');
const docs = fixture<Record<string, GeminiRequest>>('gemini-docs.json');
const at = '2026-01-01T00:00:00.000Z';

const error = caughtError;

describe('fromGemini / toGemini round trips (MSG-2)', () => {
  it.each([
    ['parallel function calling', parallel],
    ['in-context reasoning with a thought signature', docs.inContextReasoning as GeminiRequest],
  ])('gives back the documented %s unchanged', (_name, request) => {
    expect(toGemini(fromGemini(request))).toEqual(request);
  });

  it('keeps ids, thoughts, signatures, the function role, an absent role and code execution', () => {
    const request: { systemInstruction: string; contents: Content[] } = {
      systemInstruction: 'You are a careful assistant.',
      contents: [
        { parts: [{ text: 'Sum the first 10 primes, then look up the weather.' }] },
        {
          role: 'model',
          parts: [
            { text: 'Primes first.', thought: true, thoughtSignature: 'c2ln' },
            {
              executableCode: {
                language: 'PYTHON' as never,
                code: 'print(sum([2,3,5,7,11,13,17,19,23,29]))',
              },
            },
            { codeExecutionResult: { outcome: 'OUTCOME_OK' as never, output: '129\n' } },
            {
              functionCall: { id: 'fc_1', name: 'get_weather', args: { city: 'Paris' } },
              thoughtSignature: 'c2lnMg==',
            },
          ],
        },
        {
          role: 'function',
          parts: [{ functionResponse: { id: 'fc_1', name: 'get_weather', response: { output: '15C' } } }],
        },
      ],
    };
    const messages = fromGemini(request);
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(messages[2]?.parts).toMatchObject([
      { type: 'reasoning', text: 'Primes first.' },
      { type: 'tool-call', id: 'fc_1', arguments: '{"city":"Paris"}' },
    ]);
    expect(messages[3]?.parts[0]).toMatchObject({
      callId: 'fc_1',
      toolName: 'get_weather',
      content: [{ text: '15C' }],
    });
    expect(toGemini(messages)).toEqual(request);
  });
});

describe('fromGemini mapping (MSG-1, MSG-2)', () => {
  it('pairs id-less parallel results with their calls in order, with stable generated ids', () => {
    const messages = fromGemini(parallel);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    const calls = messages[1]?.parts.filter((p) => p.type === 'tool-call') ?? [];
    const results = messages[2]?.parts.filter((p) => p.type === 'tool-result') ?? [];
    expect(calls.map((c) => c.type === 'tool-call' && c.arguments)).toEqual([
      '{"city":"Paris"}',
      '{"city":"London"}',
    ]);
    expect(results.map((r) => r.type === 'tool-result' && r.callId)).toEqual(
      calls.map((c) => c.type === 'tool-call' && c.id),
    );
    expect(new Set(calls.map((c) => c.type === 'tool-call' && c.id)).size).toBe(2);
    expect(results[0]).toMatchObject({
      toolName: 'check_weather',
      content: [{ type: 'text', text: '{"temp":"15C"}' }],
    });
    expect(fromGemini(parallel)[1]?.parts).toEqual(messages[1]?.parts);
    expect(messages[1]?.parts[0]?.providerMetadata?.gemini).toMatchObject({
      thoughtSignature: '<Signature_A>',
    });
  });

  it('answers by id when the API sends ids, whatever the order', () => {
    const messages = fromGemini({
      contents: [
        { role: 'user', parts: [{ text: 'go' }] },
        {
          role: 'model',
          parts: [
            { functionCall: { id: 'a', name: 'f', args: {} } },
            { functionCall: { id: 'b', name: 'f', args: {} } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'b', name: 'f', response: { error: 'timeout' } } },
            { functionResponse: { id: 'a', name: 'f', response: { output: 'ok' } } },
            { text: 'Why did b fail?' },
          ],
        },
      ],
    });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(messages[2]?.parts).toMatchObject([
      { callId: 'b', isError: true, content: [{ text: 'timeout' }] },
      { callId: 'a', content: [{ text: 'ok' }] },
    ]);
  });
});

describe('toGemini from other formats (MSG-2)', () => {
  it('puts results in a user turn after the calls, merges the next user text, shapes responses', () => {
    const messages: Message[] = [
      ...buildConversation()
        .system('Be brief.')
        .user('Weather?')
        .toolRound([
          { name: 'get_weather', args: { city: 'Paris' }, result: '{"temp":15}' },
          { name: 'get_weather', args: { city: 'Oslo' }, result: 'station offline', isError: true },
          { name: 'get_weather', args: { city: 'Rome' }, result: '{ "temp": 21 }' },
        ])
        .user('Thanks')
        .build(),
    ];
    expect(toGemini(messages)).toEqual({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Weather?' }] },
        {
          role: 'model',
          parts: [
            { functionCall: { id: 'call_0', name: 'get_weather', args: { city: 'Paris' } } },
            { functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Oslo' } } },
            { functionCall: { id: 'call_2', name: 'get_weather', args: { city: 'Rome' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'call_0', name: 'get_weather', response: { temp: 15 } } },
            {
              functionResponse: { id: 'call_1', name: 'get_weather', response: { error: 'station offline' } },
            },
            // Not the exact JSON.stringify form: sent as text so it converts back unchanged.
            {
              functionResponse: { id: 'call_2', name: 'get_weather', response: { output: '{ "temp": 21 }' } },
            },
            { text: 'Thanks' },
          ],
        },
      ],
    });
  });

  it('drops redacted reasoning, keeps readable reasoning as thoughts, writes attachments', () => {
    const message: Message = {
      id: 'a',
      role: 'assistant',
      createdAt: at,
      parts: [
        { type: 'reasoning', text: '', redactedData: 'EmwK' },
        { type: 'reasoning', text: 'Let me think.', signature: 'anthropic-only' },
        { type: 'attachment', kind: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=', size: 8 },
        { type: 'attachment', kind: 'file', mediaType: 'application/pdf', url: 'gs://bucket/report.pdf' },
      ],
    };
    expect(toGemini([message]).contents[0]?.parts).toEqual([
      { text: 'Let me think.', thought: true },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { fileData: { mimeType: 'application/pdf', fileUri: 'gs://bucket/report.pdf' } },
    ]);
    expect(toGemini([message], { reasoning: 'omit' }).contents[0]?.parts).toHaveLength(2);
  });

  it('returns contents the official SDK accepts', () => {
    const contents: Content[] = toGemini(fromGemini(parallel)).contents;
    expect(contents).toHaveLength(3);
  });

  it('needs a tool name for every result', () => {
    const orphan: Message = {
      id: 't',
      role: 'tool',
      createdAt: at,
      parts: [{ type: 'tool-result', callId: 'nowhere', content: [{ type: 'text', text: 'x' }] }],
    };
    const caught = error(() => toGemini([orphan]));
    expect(caught.code).toBe('E_INVALID_MESSAGE');
    expect(caught.message).toMatch(/^messages\[0\]\.parts\[0\]: Gemini needs the function name/);
  });
});

describe('fromGemini rejects bad input with typed errors naming the path (MSG-4)', () => {
  it('unknown role', () => {
    const caught = error(() => fromGemini({ contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }));
    expect(caught.code).toBe('E_UNKNOWN_ROLE');
    expect(caught.message).toBe(
      'contents[0].role: unknown role "assistant"; expected one of user, model, function',
    );
  });

  it('parts with no or two data fields, bad args, missing parts', () => {
    const cases: [unknown, string][] = [
      [
        { contents: [{ role: 'user', parts: [{ thought: true }] }] },
        'contents[0].parts[0]: expected one of text, inlineData, fileData, functionCall, functionResponse, executableCode, codeExecutionResult, received a part with none of them',
      ],
      [
        {
          contents: [
            { role: 'user', parts: [{ text: 'a', inlineData: { mimeType: 'image/png', data: '' } }] },
          ],
        },
        'contents[0].parts[0]: a Gemini part holds exactly one of text, inlineData, fileData, functionCall, functionResponse, executableCode, codeExecutionResult, received text and inlineData',
      ],
      [
        { contents: [{ role: 'model', parts: [{ functionCall: { name: 'f', args: '{}' } }] }] },
        'contents[0].parts[0].functionCall.args: expected record, received string "{}"',
      ],
      [
        { contents: [{ role: 'user' }] },
        'contents[0].parts: expected array, received nothing (the field is missing)',
      ],
      [{ contents: 'hello' }, 'contents: expected array, received string "hello"'],
    ];
    for (const [input, message] of cases) {
      const caught = error(() => fromGemini(input as never));
      expect(caught.code, message).toBe('E_INVALID_MESSAGE');
      expect(caught.message).toBe(message);
    }
  });
});
