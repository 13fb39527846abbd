/**
 * MSG-2 property: any valid neutral conversation survives neutral → provider → neutral for
 * every converter, compared on what each provider can carry (see `projection`).
 */
import { modelMessageSchema } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromAiSdk, toAiSdk } from './ai-sdk.ts';
import { fromAnthropic, toAnthropic } from './anthropic.ts';
import { fromGemini, toGemini } from './gemini.ts';
import type { NormalizeOptions } from './normalize.ts';
import { fromOpenAI, toOpenAI } from './openai.ts';
import type { Message, Part } from './types.ts';

const at = '2026-01-01T00:00:00.000Z';
/** Non-empty, well-formed Unicode (providers reject empty text blocks; lone surrogates are cleaned). */
const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 });
const name = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_-]{0,20}$/);
const args = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
/** Tool output as tools write it: plain text, or JSON (sometimes canonical, sometimes not). */
const output = fc.oneof(
  text,
  args.map((value) => JSON.stringify(value)),
  args.map((value) => JSON.stringify(value, null, 1)),
);
const reasoning = fc.oneof(
  fc.record({
    kind: fc.constant('signed' as const),
    text,
    signature: fc.base64String({ minLength: 4, maxLength: 24 }),
  }),
  fc.record({
    kind: fc.constant('redacted' as const),
    data: fc.base64String({ minLength: 4, maxLength: 24 }),
  }),
);

type Step =
  | { kind: 'user'; texts: string[] }
  | {
      kind: 'assistant';
      thought?: { kind: 'signed'; text: string; signature: string } | { kind: 'redacted'; data: string };
      texts: string[];
    }
  | {
      kind: 'tools';
      preamble?: string;
      calls: { name: string; args: Record<string, unknown>; result: string; isError: boolean }[];
      grouped: boolean;
    };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), texts: fc.array(text, { minLength: 1, maxLength: 2 }) }),
  fc.record(
    {
      kind: fc.constant('assistant' as const),
      thought: reasoning,
      texts: fc.array(text, { minLength: 1, maxLength: 2 }),
    },
    { requiredKeys: ['kind', 'texts'] },
  ),
  fc.record(
    {
      kind: fc.constant('tools' as const),
      preamble: text,
      calls: fc.array(fc.record({ name, args, result: output, isError: fc.boolean() }), {
        minLength: 1,
        maxLength: 3,
      }),
      grouped: fc.boolean(),
    },
    { requiredKeys: ['kind', 'calls', 'grouped'] },
  ),
);

const conversation = fc
  .record({
    system: fc.option(text, { nil: undefined }),
    steps: fc.array(step, { minLength: 1, maxLength: 8 }),
  })
  .map(({ system, steps }): Message[] => {
    const messages: Message[] = [];
    let calls = 0;
    const push = (role: Message['role'], parts: Part[]) =>
      messages.push({ id: `m${messages.length}`, role, parts, createdAt: at });
    if (system !== undefined) push('system', [{ type: 'text', text: system }]);
    push('user', [{ type: 'text', text: 'Start.' }]);
    for (const item of steps) {
      if (item.kind === 'user')
        push(
          'user',
          item.texts.map((t) => ({ type: 'text', text: t })),
        );
      else if (item.kind === 'assistant') {
        const thought: Part[] =
          item.thought === undefined
            ? []
            : item.thought.kind === 'signed'
              ? [{ type: 'reasoning', text: item.thought.text, signature: item.thought.signature }]
              : [{ type: 'reasoning', text: '', redactedData: item.thought.data }];
        push('assistant', [...thought, ...item.texts.map((t): Part => ({ type: 'text', text: t }))]);
      } else {
        const ids = item.calls.map(() => `call_${calls++}`);
        push('assistant', [
          ...(item.preamble === undefined ? [] : [{ type: 'text' as const, text: item.preamble }]),
          ...item.calls.map(
            (call, i): Part => ({
              type: 'tool-call',
              id: ids[i] as string,
              name: call.name,
              arguments: JSON.stringify(call.args),
            }),
          ),
        ]);
        const results = item.calls.map(
          (call, i): Part => ({
            type: 'tool-result',
            callId: ids[i] as string,
            toolName: call.name,
            content: [{ type: 'text', text: call.result }],
            ...(call.isError ? { isError: true } : {}),
          }),
        );
        if (item.grouped) push('tool', results);
        else for (const result of results) push('tool', [result]);
      }
    }
    return messages;
  });

interface Carries {
  /** The provider has an error flag on tool results. */
  readonly isError: boolean;
  /** Which reasoning survives: none, readable text only, or everything with signatures. */
  readonly reasoning: 'none' | 'text' | 'all';
}

/**
 * The conversation as a flat list of what the provider carries, in order: message boundaries
 * are not compared (Anthropic and Gemini merge consecutive same-role turns), nor roles of
 * tool messages (they become user turns).
 */
function projection(messages: readonly Message[], carries: Carries): string[] {
  const out: string[] = [];
  for (const message of messages) {
    const side = message.role === 'assistant' ? 'assistant' : message.role === 'system' ? 'system' : 'user';
    for (const part of message.parts) {
      switch (part.type) {
        case 'text':
          out.push(`${side} text ${JSON.stringify(part.text)}`);
          break;
        case 'reasoning':
          if (carries.reasoning === 'all')
            out.push(`reasoning ${JSON.stringify([part.text, part.signature, part.redactedData])}`);
          else if (carries.reasoning === 'text' && part.text !== '')
            out.push(`reasoning ${JSON.stringify(part.text)}`);
          break;
        case 'tool-call':
          out.push(`call ${JSON.stringify([part.id, part.name, part.arguments])}`);
          break;
        case 'tool-result': {
          const content = part.content
            .map((inner) => (inner.type === 'text' ? inner.text : inner.type))
            .join('');
          out.push(
            `result ${JSON.stringify([part.callId, content, carries.isError && part.isError === true])}`,
          );
          break;
        }
        case 'attachment':
          out.push(`attachment ${part.mediaType}`);
          break;
      }
    }
  }
  return out;
}

const runs = { numRuns: 150 };

describe('every converter keeps text, tool calls, results and reasoning it can carry (MSG-2, property)', () => {
  it('OpenAI Chat Completions (no error flag, no reasoning field)', () => {
    const carries: Carries = { isError: false, reasoning: 'none' };
    fc.assert(
      fc.property(conversation, (messages) => {
        expect(projection(fromOpenAI(toOpenAI(messages)), carries)).toEqual(projection(messages, carries));
      }),
      runs,
    );
  });

  it('Anthropic Messages (signed and redacted thinking kept)', () => {
    const carries: Carries = { isError: true, reasoning: 'all' };
    fc.assert(
      fc.property(conversation, (messages) => {
        // A message of only whitespace text is left out on purpose (Anthropic refuses it, MSG-4).
        fc.pre(!messages.some((m) => m.parts.every((p) => p.type === 'text' && !/\S/.test(p.text))));
        const request = toAnthropic(messages);
        expect(projection(fromAnthropic(request), carries)).toEqual(projection(messages, carries));
        request.messages.forEach((turn, i) => {
          if (i > 0) expect(turn.role).not.toBe(request.messages[i - 1]?.role);
        });
      }),
      runs,
    );
  });

  it('Gemini contents (thoughts as text, errors as { error })', () => {
    const carries: Carries = { isError: true, reasoning: 'text' };
    fc.assert(
      fc.property(conversation, (messages) => {
        const request = toGemini(messages);
        expect(projection(fromGemini(request), carries)).toEqual(projection(messages, carries));
        request.contents.forEach((content, i) => {
          if (i > 0) expect(content.role).not.toBe(request.contents[i - 1]?.role);
        });
      }),
      runs,
    );
  });

  it('AI SDK ModelMessage (everything, signatures in providerOptions)', () => {
    const carries: Carries = { isError: true, reasoning: 'all' };
    fc.assert(
      fc.property(conversation, (messages) => {
        const sent = toAiSdk(messages);
        // What ai 7's own schema accepts as `messages`.
        expect(modelMessageSchema.array().safeParse(sent).error).toBeUndefined();
        const back = fromAiSdk(sent);
        expect(projection(back, carries)).toEqual(projection(messages, carries));
        // Nothing is merged here: the same messages, in the same roles.
        expect(back.map((m) => m.role)).toEqual(messages.map((m) => m.role));
      }),
      runs,
    );
  });

  it('a second trip through any provider changes nothing more (converters are stable)', () => {
    fc.assert(
      fc.property(conversation, (messages) => {
        const once = fromAnthropic(toAnthropic(messages), { now: () => new Date(at) });
        expect(fromAnthropic(toAnthropic(once), { now: () => new Date(at) })).toEqual(once);
        const viaGemini = fromGemini(toGemini(messages), { now: () => new Date(at) });
        expect(fromGemini(toGemini(viaGemini), { now: () => new Date(at) })).toEqual(viaGemini);
        const viaOpenAI = fromOpenAI(toOpenAI(messages), { now: () => new Date(at) });
        expect(fromOpenAI(toOpenAI(viaOpenAI), { now: () => new Date(at) })).toEqual(viaOpenAI);
      }),
      { numRuns: 60 },
    );
  });
});

describe('tool arguments hold any JSON object (MSG-2)', () => {
  it('keeps an own "__proto__" key through every provider', () => {
    const call: Message = {
      id: 'a',
      role: 'assistant',
      createdAt: at,
      parts: [
        { type: 'tool-call', id: 'c1', name: 'set', arguments: '{"__proto__":{"polluted":true},"x":1}' },
      ],
    };
    const result: Message = {
      id: 't',
      role: 'tool',
      createdAt: at,
      parts: [
        { type: 'tool-result', callId: 'c1', toolName: 'set', content: [{ type: 'text', text: 'ok' }] },
      ],
    };
    const args = (messages: Message[]) =>
      messages.flatMap((m) => m.parts).find((p) => p.type === 'tool-call');
    const expected = { arguments: '{"__proto__":{"polluted":true},"x":1}' };
    expect(args(fromAnthropic(toAnthropic([call, result])))).toMatchObject(expected);
    expect(args(fromGemini(toGemini([call, result])))).toMatchObject(expected);
    expect(args(fromAiSdk(toAiSdk([call, result])))).toMatchObject(expected);
    expect(args(fromOpenAI(toOpenAI([call, result])))).toMatchObject(expected);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });
});

describe('every fromX passes NormalizeOptions through (MSG-4)', () => {
  const lone = 'broken \uD800 text';
  const readers: [string, (options: NormalizeOptions) => Message[]][] = [
    ['fromOpenAI', (options) => fromOpenAI([{ role: 'user', content: lone }], options)],
    ['fromAnthropic', (options) => fromAnthropic({ messages: [{ role: 'user', content: lone }] }, options)],
    [
      'fromGemini',
      (options) => fromGemini({ contents: [{ role: 'user', parts: [{ text: lone }] }] }, options),
    ],
    ['fromAiSdk', (options) => fromAiSdk([{ role: 'user', content: lone }], options)],
  ];
  it.each(readers)('%s: lone surrogates, size limit and clock', (_name, read) => {
    expect(read({ now: () => new Date(at) })[0]).toMatchObject({
      createdAt: at,
      parts: [{ type: 'text', text: 'broken \uFFFD text' }],
    });
    expect(() => read({ loneSurrogates: 'error' })).toThrowError(
      expect.objectContaining({ code: 'E_INVALID_TEXT' }),
    );
    expect(() => read({ maxMessageChars: 5 })).toThrowError(
      expect.objectContaining({ code: 'E_MESSAGE_TOO_LARGE' }),
    );
  });
});
