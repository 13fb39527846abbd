/**
 * The entry check for neutral messages (MSG-4): the hand-written pass agrees with the zod
 * schema that defines the model, errors name the path, depth is bounded everywhere input
 * enters (neutral messages and provider formats), and messages `normalizeMessages` accepted
 * are accepted everywhere.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { corrupt, malformedCases } from '../../test/malformed-messages.ts';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { caughtError } from '../test/caught-error.ts';
import { countTokens } from '../tokens/count-tokens.ts';
import { fromAiSdk } from './ai-sdk.ts';
import { fromAnthropic } from './anthropic.ts';
import { assertMessage, assertMessages, DEFAULT_MAX_MESSAGE_CHARS } from './check-messages.ts';
import { fromGemini } from './gemini.ts';
import { jsonTextDepth, MAX_NESTING_DEPTH, tooDeepPath } from './json-depth.ts';
import { messageSchema } from './message-schema.ts';
import { normalizeMessages } from './normalize.ts';
import { fromOpenAI } from './openai.ts';
import { toAnthropic } from './to-anthropic.ts';
import type { Message } from './types.ts';

const at = '2026-01-01T00:00:00.000Z';
const user = (text: unknown, extra: object = {}): Message =>
  ({ id: 'u', role: 'user', parts: [{ type: 'text', text }], createdAt: at, ...extra }) as Message;

const error = caughtError;

const nested = (depth: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

describe('assertMessages (MSG-4)', () => {
  it('accepts exactly what the zod schema accepts (property over malformed messages)', () => {
    let refused = 0;
    fc.assert(
      fc.property(malformedCases, ({ conversation, corruptions }) => {
        const input = corrupt(conversation, corruptions);
        if (!Array.isArray(input)) return;
        for (let i = 0; i < input.length; i++) {
          const message: unknown = input[i];
          // Zod recurses without a bound and knows no size limit: those are the fast check's alone.
          if (tooDeepPath(message, MAX_NESTING_DEPTH - 4) !== undefined) continue;
          const fast = (() => {
            try {
              assertMessage(message, i, 'test');
              return true;
            } catch (caught) {
              if (ChatfoldError.hasCode(caught, 'E_MESSAGE_TOO_LARGE')) return undefined;
              if (!ChatfoldError.isInstance(caught)) throw caught;
              refused++;
              return false;
            }
          })();
          if (fast === undefined) continue;
          expect({ index: i, accepted: fast }).toEqual({
            index: i,
            accepted: messageSchema.safeParse(message).success,
          });
        }
      }),
      { numRuns: 500 },
    );
    expect(refused).toBeGreaterThan(100);
  });

  it('names the path, what was expected and what was received', () => {
    const cases: [unknown, string, string][] = [
      [null, 'E_INVALID_MESSAGES', 'f: expected an array of messages, received null'],
      [[null], 'E_INVALID_MESSAGE', 'f: messages[0]: expected object, received null'],
      [[user(42)], 'E_INVALID_MESSAGE', 'f: messages[0].parts[0].text: expected string, received number'],
      [[user('x', { id: null })], 'E_INVALID_MESSAGE', 'f: messages[0].id: expected string, received null'],
      [
        [user('x', { role: 'wizard' })],
        'E_UNKNOWN_ROLE',
        'f: messages[0].role: unknown role "wizard"; expected one of system, user, assistant, tool',
      ],
      [
        [
          {
            id: 't',
            role: 'tool',
            parts: [{ type: 'tool-result', callId: 'c', content: 'out' }],
            createdAt: at,
          },
        ],
        'E_INVALID_MESSAGE',
        'f: messages[0].parts[0].content: expected array, received string "out"',
      ],
      [
        [user('x', { parts: [{ type: 'attachment', kind: 'image', data: 'AA==' }] })],
        'E_INVALID_MESSAGE',
        'f: messages[0].parts[0].mediaType: expected string, received nothing (the field is missing)',
      ],
      [
        [user('x', { usage: { inputTokens: Number.NaN } })],
        'E_INVALID_MESSAGE',
        'f: messages[0].usage.inputTokens: expected number, received NaN',
      ],
    ];
    for (const [input, code, message] of cases) {
      expect(error(() => assertMessages(input, 'f'))).toMatchObject({ code, message });
    }
  });

  it('bounds nesting in metadata, cycles included, with the path where it goes too deep', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const deep = error(() => assertMessages([user('x', { metadata: { tree: nested(10_000) } })], 'f'));
    expect(deep).toMatchObject({ code: 'E_NESTING_TOO_DEEP', details: { limit: MAX_NESTING_DEPTH } });
    expect(deep.message).toMatch(/^f: messages\[0\]\.metadata\.tree\.a\.a\.a/);
    expect(error(() => assertMessages([user('x', { metadata: cyclic })], 'f')).code).toBe(
      'E_NESTING_TOO_DEEP',
    );
    // As deep as allowed is fine.
    expect(() =>
      assertMessages([user('x', { metadata: { tree: nested(MAX_NESTING_DEPTH - 1) } })], 'f'),
    ).not.toThrow();
  });

  it('refuses a message over the size limit, by its text, before reading it', () => {
    const big = user('x'.repeat(DEFAULT_MAX_MESSAGE_CHARS + 1));
    expect(error(() => assertMessages([big], 'f'))).toMatchObject({
      code: 'E_MESSAGE_TOO_LARGE',
      details: { index: 0, actual: DEFAULT_MAX_MESSAGE_CHARS + 1, limit: DEFAULT_MAX_MESSAGE_CHARS },
    });
  });

  it('applies the size limit of each call to messages it already checked', () => {
    const message = user('x'.repeat(100));
    expect(assertMessages([message], 'f')).toEqual([message]);
    expect(error(() => assertMessages([message], 'f', { maxMessageChars: 50 }))).toMatchObject({
      code: 'E_MESSAGE_TOO_LARGE',
      details: { actual: 100, limit: 50 },
    });
  });

  it('accepts everywhere what normalizeMessages accepted, even over the default size limit', () => {
    const text = 'x'.repeat(DEFAULT_MAX_MESSAGE_CHARS + 10);
    const [message] = normalizeMessages([{ role: 'user', parts: [{ type: 'text', text }] }], {
      maxMessageChars: DEFAULT_MAX_MESSAGE_CHARS * 2,
    });
    expect(countTokens([message as Message]).total).toBeGreaterThan(0);
    // The same content in a fresh object was never checked with the raised limit.
    expect(error(() => countTokens([{ ...(message as Message) }])).code).toBe('E_MESSAGE_TOO_LARGE');
  });

  it('refuses the holes of a sparse array', () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the test
    const sparse = [user('a'), , user('b')] as Message[];
    expect(error(() => assertMessages(sparse, 'f')).message).toBe(
      'f: messages[1]: expected object, received nothing (the field is missing)',
    );
    expect(error(() => normalizeMessages(sparse)).code).toBe('E_INVALID_MESSAGE');
  });
});

describe('nesting depth where provider input enters (MSG-4)', () => {
  const deepInput = nested(10_000) as Record<string, unknown>;

  it('fromAnthropic refuses a 10,000-deep tool_use.input (zod overflowed the stack)', () => {
    const request = {
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: deepInput }] },
      ],
    };
    const refused = error(() => fromAnthropic(request as never));
    expect(refused.code).toBe('E_NESTING_TOO_DEEP');
    expect(refused.message).toMatch(/^messages\[1\]\.content\[0\]\.input\.a\.a/);
  });

  it('fromOpenAI refuses 10,000-deep arguments (they converted but could not be stringified)', () => {
    const args = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const refused = error(() =>
      fromOpenAI([
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: args } }],
        },
      ]),
    );
    expect(refused).toMatchObject({
      code: 'E_NESTING_TOO_DEEP',
      details: { where: 'messages[1].tool_calls[0].function.arguments' },
    });
  });

  it('fromGemini and fromAiSdk refuse 10,000-deep arguments', () => {
    expect(
      error(() =>
        fromGemini({
          contents: [
            { role: 'user', parts: [{ text: 'go' }] },
            { role: 'model', parts: [{ functionCall: { name: 'f', args: deepInput } }] },
          ],
        } as never),
      ).code,
    ).toBe('E_NESTING_TOO_DEEP');
    expect(
      error(() =>
        fromAiSdk([
          { role: 'user', content: 'go' },
          {
            role: 'assistant',
            content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'f', input: deepInput }],
          },
        ] as never),
      ).code,
    ).toBe('E_NESTING_TOO_DEEP');
  });

  it('accepts tool input as deep as the limit in every format, and the result can be sent', () => {
    const input = nested(MAX_NESTING_DEPTH - 1) as Record<string, unknown>;
    const messages = fromAnthropic({
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input }] },
      ],
    } as never);
    expect(JSON.stringify(toAnthropic(messages))).toContain('"leaf"');
  });
});

describe('jsonTextDepth and tooDeepPath', () => {
  it('counts brackets outside strings only, escapes included', () => {
    expect(jsonTextDepth('{"a":[1,{"b":2}]}')).toBe(3);
    expect(jsonTextDepth('"[[[[\\"[["')).toBe(0);
    expect(jsonTextDepth('{"a":"\\\\"}')).toBe(1);
    expect(jsonTextDepth('[[[[[', 3)).toBe(4);
  });

  it('finds the first path past the limit, and ends on cycles', () => {
    expect(tooDeepPath({ a: [{ b: 1 }] }, 3)).toBeUndefined();
    expect(tooDeepPath({ a: [{ b: {} }] }, 3)).toEqual(['a', 0, 'b']);
    const cyclic: Record<string, unknown> = {};
    cyclic.next = cyclic;
    expect(tooDeepPath(cyclic, 5)).toEqual(['next', 'next', 'next', 'next', 'next']);
  });
});
