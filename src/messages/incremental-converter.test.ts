import { describe, expect, it } from 'vitest';
import { type AiSdkMessageInput, aiSdkConversion, fromAiSdk } from './ai-sdk.ts';
import { createIncrementalConverter, isSameData } from './incremental-converter.ts';
import { fromOpenAI, type OpenAIMessage, openAIConversion } from './openai.ts';
import { snapshotInput } from './snapshot.ts';

const now = () => new Date('2026-01-01T00:00:00.000Z');
const read = (value: unknown) => snapshotInput(value, { root: 'messages' });

describe('isSameData (what counts as the same message)', () => {
  it('is equal content in other objects', () => {
    const message = {
      role: 'user',
      content: [{ type: 'text', text: 'hi', providerOptions: { a: { b: 1 } } }],
    };
    expect(isSameData(read(message), read(structuredClone(message)))).toBe(true);
  });

  it('tells apart what a conversion keeps: key order, 0 and -0, bytes, a missing key and an undefined one', () => {
    expect(isSameData(read({ a: 1, b: 2 }), read({ b: 2, a: 1 }))).toBe(false);
    expect(isSameData(read({ a: 0 }), read({ a: -0 }))).toBe(false);
    expect(isSameData(read({ a: Number.NaN }), read({ a: Number.NaN }))).toBe(true);
    expect(isSameData(read(new Uint8Array([1, 2])), read(new Uint8Array([1, 2])))).toBe(true);
    expect(isSameData(read(new Uint8Array([1, 2])), read(new Uint8Array([1, 3])))).toBe(false);
    expect(isSameData(read(new Uint8Array([1, 2]).buffer), read(new Uint8Array([1, 2]).buffer))).toBe(true);
    expect(isSameData(read(new URL('https://a.example/x')), read(new URL('https://a.example/y')))).toBe(
      false,
    );
    expect(isSameData(read({ a: 1 }), read({ a: 1, b: undefined }))).toBe(false);
    expect(isSameData(read([1, 2]), read({ 0: 1, 1: 2 }))).toBe(false);
  });

  it('tells a plain object from a class instance with the same keys (the schema refuses one)', () => {
    class Part {
      type = 'text';
      text = 'hi';
    }
    expect(isSameData(read({ type: 'text', text: 'hi' }), read(new Part()))).toBe(false);
  });
});

describe('createIncrementalConverter', () => {
  it('new messages take the time of the call that first sees them; earlier ones keep theirs', () => {
    let minute = 0;
    const clock = () => new Date(Date.UTC(2026, 0, 1, 0, minute));
    const converter = createIncrementalConverter(aiSdkConversion, { now: clock });
    const first: AiSdkMessageInput[] = [{ role: 'user', content: 'hi' }];
    converter.convert(first);
    minute = 5;
    const second: AiSdkMessageInput[] = [...first, { role: 'assistant', content: 'hello' }];
    const converted = converter.convert(second);
    expect(converted.map((message) => message.createdAt)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:05:00.000Z',
    ]);
    // What a whole conversion at this time gives the new message.
    expect(converted[1]?.createdAt).toBe(fromAiSdk(second, { now: clock })[1]?.createdAt);
  });

  it('converts again a message whose keys come in another order (its extra keys keep their order)', () => {
    const converter = createIncrementalConverter(aiSdkConversion, { now });
    const first = [{ role: 'user', content: 'hi', note: 1, tag: 'a' }] as unknown as AiSdkMessageInput[];
    const reordered = [{ role: 'user', content: 'hi', tag: 'a', note: 1 }] as unknown as AiSdkMessageInput[];
    converter.convert(first);
    expect(converter.convert(reordered)).toStrictEqual(fromAiSdk(reordered, { now }));
    expect(converter.lastConverted).toBe(1);
  });

  it('names the index of a bad new message as a whole conversion does', () => {
    const converter = createIncrementalConverter(openAIConversion, { now });
    const history: OpenAIMessage[] = [
      { role: 'user', content: 'run it' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'run', arguments: '{}' } }],
      },
    ];
    converter.convert(history);
    const bad = [
      ...history,
      { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'run', arguments: '{oops' } }],
      },
    ] as OpenAIMessage[];
    expect(() => converter.convert(bad)).toThrow(/messages\[3\]\.tool_calls\[0\]\.function\.arguments/);
    expect(() => fromOpenAI(bad)).toThrow(/messages\[3\]\.tool_calls\[0\]\.function\.arguments/);
    // The history before the bad message is still remembered.
    converter.convert([...history, { role: 'user', content: 'again' }]);
    expect(converter.lastConverted).toBe(1);
  });

  it('a tool result after an edit takes the tool name of the call before the edit', () => {
    const converter = createIncrementalConverter(openAIConversion, { now });
    const call = (name: string): OpenAIMessage => ({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name, arguments: '{}' } }],
    });
    converter.convert([
      { role: 'user', content: 'go' },
      call('read_file'),
      { role: 'user', content: 'x' },
      call('run'),
    ]);
    // Cut back to before the second call: `call_1` is `read_file` again.
    const branch: OpenAIMessage[] = [
      { role: 'user', content: 'go' },
      call('read_file'),
      { role: 'user', content: 'y' },
      { role: 'tool', tool_call_id: 'call_1', content: 'done' },
    ];
    const converted = converter.convert(branch);
    expect(converter.lastConverted).toBe(2);
    expect(converted).toStrictEqual(fromOpenAI(branch, { now }));
    expect(converted[3]?.parts[0]).toMatchObject({ type: 'tool-result', toolName: 'read_file' });
  });
});
