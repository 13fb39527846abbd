/**
 * LangChain.js `trimMessages` test suite, ported to neutral messages (STR-9).
 *
 * Source: the 14 cases of `describe("trimMessages can trim")` in
 * https://github.com/langchain-ai/langchainjs/blob/84ce6d65ef0ab2c556d5a5a3b5651b5cf3d73303/libs/langchain-core/src/messages/tests/message_utils.test.ts
 * (commit 84ce6d65ef0ab2c556d5a5a3b5651b5cf3d73303, MIT licence). Inputs and expectations are
 * theirs, written as chatfold messages; every case also runs the same input through the real
 * `trimMessages` of the installed `@langchain/core` and checks it gives the same answer, so the
 * port cannot drift from LangChain's behaviour unnoticed. A property test then compares the two
 * on random tool-free conversations (tools are where chatfold deliberately differs).
 */
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type TrimMessagesFields,
  trimMessages,
} from '@langchain/core/messages';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message, Part, TextPart } from '../messages/types.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { type TrimOptions, trimToTokens } from './trim.ts';

// --- Neutral ⇄ LangChain for the comparison (text, tool calls and tool results only). ---

type Block = { type: 'text'; text: string };

function toLangChain(message: Message): BaseMessage[] {
  const texts = message.parts.filter((part): part is TextPart => part.type === 'text');
  const content: string | Block[] =
    message.parts.length === 1 && texts.length === 1
      ? (texts[0] as TextPart).text
      : texts.map((part) => ({ type: 'text', text: part.text }));
  const fields = { content, id: message.id };
  switch (message.role) {
    case 'system':
      return [new SystemMessage(fields)];
    case 'user':
      return [new HumanMessage(fields)];
    case 'assistant': {
      const calls = message.parts.flatMap((part) =>
        part.type === 'tool-call'
          ? [{ id: part.id, name: part.name, args: JSON.parse(part.arguments), type: 'tool_call' as const }]
          : [],
      );
      return [
        new AIMessage({
          ...fields,
          content: calls.length > 0 && texts.length === 0 ? '' : content,
          tool_calls: calls,
        }),
      ];
    }
    case 'tool':
      return message.parts.flatMap((part) =>
        part.type === 'tool-result'
          ? [
              new ToolMessage({
                id: message.id,
                tool_call_id: part.callId,
                ...(part.toolName === undefined ? {} : { name: part.toolName }),
                content: part.content.map((inner) => (inner.type === 'text' ? inner.text : '')).join(''),
              }),
            ]
          : [],
      );
  }
}

const ROLE_OF: Record<string, Message['role']> = {
  system: 'system',
  human: 'user',
  ai: 'assistant',
  tool: 'tool',
};

function fromLangChain(message: BaseMessage): Message {
  const role = ROLE_OF[message.getType()] as Message['role'];
  const parts: Part[] =
    role === 'tool'
      ? [
          {
            type: 'tool-result',
            callId: (message as ToolMessage).tool_call_id,
            ...(message.name === undefined ? {} : { toolName: message.name }),
            content: [{ type: 'text', text: String(message.content) }],
          },
        ]
      : typeof message.content === 'string'
        ? message.content === '' && ((message as AIMessage).tool_calls?.length ?? 0) > 0
          ? []
          : [{ type: 'text', text: message.content }]
        : (message.content as Block[]).map((block) => ({ type: 'text', text: block.text }));
  if (role === 'assistant') {
    for (const call of (message as AIMessage).tool_calls ?? []) {
      parts.push({
        type: 'tool-call',
        id: call.id as string,
        name: call.name,
        arguments: JSON.stringify(call.args),
      });
    }
  }
  return { id: message.id ?? '', role, parts, createdAt: '' };
}

/** What both sides are compared on: id, role and parts (the neutral parts of each message). */
const shape = (messages: readonly Message[]) => messages.map(({ id, role, parts }) => ({ id, role, parts }));

type NeutralCounter = (messages: Message[]) => number;
type LangChainOptions = Omit<TrimOptions<number, string[] | Promise<string[]>>, 'tokenCounter' | 'counter'>;

/** The same trim through LangChain.js: messages converted, the same counter over converted-back messages. */
async function viaLangChain(
  messages: readonly Message[],
  options: LangChainOptions & { readonly tokenCounter: NeutralCounter },
): Promise<Message[]> {
  const { tokenCounter, startOn, endOn, ...rest } = options;
  const lcName = (type: unknown) => (type === 'user' ? 'human' : type === 'assistant' ? 'ai' : type);
  const names = (value: unknown) => (Array.isArray(value) ? value.map(lcName) : lcName(value));
  const trimmed = await trimMessages(messages.flatMap(toLangChain), {
    ...(rest as object),
    maxTokens: options.maxTokens,
    tokenCounter: (list: BaseMessage[]) => tokenCounter(list.map(fromLangChain)),
    ...(startOn === undefined ? {} : { startOn: names(startOn) }),
    ...(endOn === undefined ? {} : { endOn: names(endOn) }),
  } as Parameters<typeof trimMessages>[1]);
  // With includeSystem and nothing kept, LangChain.js 1.x returns [undefined]: read it as [].
  return trimmed.filter((message) => message !== undefined).map(fromLangChain);
}

// --- Their fixture: five messages of 10 tokens each, but the two-block AI message is 14. ---

const TEN = 'This is a 4 token text. The full message is 10 tokens.';
const text = (value: string): TextPart => ({ type: 'text', text: value });
const fixture = (): Message[] => [
  { id: 'system', role: 'system', parts: [text(TEN)], createdAt: '' },
  { id: 'first', role: 'user', parts: [text(TEN)], createdAt: '' },
  {
    id: 'second',
    role: 'assistant',
    parts: [text('This is the FIRST 4 token block.'), text('This is the SECOND 4 token block.')],
    createdAt: '',
  },
  { id: 'third', role: 'user', parts: [text(TEN)], createdAt: '' },
  { id: 'fourth', role: 'assistant', parts: [text(TEN)], createdAt: '' },
];
/** Their dummy counter: 3 + 4 per content block (a string is one) + 3, per message. */
const dummyTokenCounter: NeutralCounter = (messages) =>
  messages.reduce((n, m) => n + 6 + 4 * m.parts.length, 0);
const byId = (messages: readonly Message[], ...ids: string[]) =>
  ids.map((id) => messages.find((m) => m.id === id) as Message);
const SECOND_FIRST_BLOCK = { ...fixture()[2], parts: [text('This is the FIRST 4 token block.')] } as Message;

/** Runs one ported case through chatfold and LangChain.js; both must give `expected`. */
async function both(
  messages: Message[],
  options: LangChainOptions & { readonly tokenCounter: NeutralCounter },
  expected: readonly Message[],
): Promise<Message[]> {
  const ours = await trimToTokens(messages, options);
  expect(shape(ours)).toEqual(shape(expected));
  expect(shape(await viaLangChain(messages, options))).toEqual(shape(expected));
  return ours;
}

describe('trimToTokens ports LangChain.js trimMessages (STR-9)', () => {
  it('1. should not mutate messages', async () => {
    const messages: Message[] = [
      {
        id: 'a',
        role: 'user',
        parts: [text('My name is Jane Doe.\n          this is a long text\n          ')],
        createdAt: '',
      },
      {
        id: 'b',
        role: 'user',
        parts: [
          text(
            'My name is Jane Doe.feiowfjoaejfioewaijof ewoif ioawej foiaew iofewi ao\n          this is a longer text than the first text.\n          ',
          ),
        ],
        createdAt: '',
      },
    ];
    const repr = JSON.stringify(messages);
    // A counter that says 100 for everything: nothing fits, and the answer is [] (not an error).
    await both(
      messages,
      { maxTokens: 14, strategy: 'last', tokenCounter: () => 100, allowPartial: true },
      [],
    );
    expect(JSON.stringify(messages)).toBe(repr);
  });

  it('2. should not mutate messages if no trimming occurs with strategy last (a tool group kept whole)', async () => {
    const args = {
      inboxName: 'flora@foo.org',
      amount: 5,
      folder: 'Inbox',
      searchString: null,
      from: null,
      subject: null,
    };
    const messages: Message[] = [
      {
        id: 'human',
        role: 'user',
        parts: [text("Fetch the last 5 emails from Flora Testington's inbox.")],
        createdAt: '',
      },
      {
        id: 'chatcmpl-abcdefg',
        role: 'assistant',
        parts: [{ type: 'tool-call', id: 'foobarbaz', name: 'getEmails', arguments: JSON.stringify(args) }],
        createdAt: '',
      },
      {
        id: 'tool',
        role: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: 'foobarbaz',
            toolName: 'getEmails',
            content: [text('a whole bunch of emails!')],
          },
        ],
        createdAt: '',
      },
    ];
    const options = {
      maxTokens: 128000,
      strategy: 'last',
      startOn: [HumanMessage],
      endOn: [AIMessage, ToolMessage],
      tokenCounter: () => 1,
    } as const;
    const ours = await both(messages, options, messages);
    // Nothing trimmed: the very same objects come back.
    ours.forEach((message, i) => {
      expect(message).toBe(messages[i]);
    });
  });

  it('3. First 30 tokens, not allowing partial messages', async () => {
    const messages = fixture();
    await both(
      messages,
      { maxTokens: 30, tokenCounter: dummyTokenCounter, strategy: 'first' },
      byId(messages, 'system', 'first'),
    );
  });

  it('4. First 30 tokens, allowing partial messages', async () => {
    const messages = fixture();
    await both(
      messages,
      { maxTokens: 30, tokenCounter: dummyTokenCounter, strategy: 'first', allowPartial: true },
      [...byId(messages, 'system', 'first'), SECOND_FIRST_BLOCK],
    );
  });

  it('5. First 30 tokens, allowing partial messages, have to end on HumanMessage', async () => {
    const messages = fixture();
    await both(
      messages,
      {
        maxTokens: 30,
        tokenCounter: dummyTokenCounter,
        strategy: 'first',
        allowPartial: true,
        endOn: 'human',
      },
      byId(messages, 'system', 'first'),
    );
  });

  it('6. First tokens, allowing partial messages, have to trim the last 10 characters of the last message', async () => {
    // Their counter for this case counts characters of a string content, blocks of an array.
    const characters: NeutralCounter = (messages) =>
      messages.reduce(
        (n, m) =>
          n + (m.parts.length === 1 && m.parts[0]?.type === 'text' ? m.parts[0].text.length : m.parts.length),
        0,
      );
    const messages = fixture();
    const total = characters(messages);
    const ours = await both(
      messages,
      {
        maxTokens: total - 10,
        tokenCounter: characters,
        strategy: 'first',
        allowPartial: true,
        textSplitter: (value: string) => value.split(''),
      },
      [
        ...byId(messages, 'system', 'first', 'second', 'third'),
        { ...(messages[4] as Message), parts: [text('This is a 4 token text. The full message is ')] },
      ],
    );
    expect(ours.at(-1)?.parts).toEqual([text('This is a 4 token text. The full message is ')]);
  });

  it('7. Last 30 tokens, including system message, not allowing partial messages', async () => {
    const messages = fixture();
    await both(
      messages,
      { maxTokens: 30, includeSystem: true, tokenCounter: dummyTokenCounter, strategy: 'last' },
      byId(messages, 'system', 'third', 'fourth'),
    );
  });

  it('8. Last 40 tokens, including system message, allowing partial messages', async () => {
    const messages = fixture();
    await both(
      messages,
      {
        maxTokens: 40,
        tokenCounter: dummyTokenCounter,
        strategy: 'last',
        allowPartial: true,
        includeSystem: true,
      },
      [messages[0] as Message, SECOND_FIRST_BLOCK, ...byId(messages, 'third', 'fourth')],
    );
  });

  it('9. Last 30 tokens, including system message, allowing partial messages, end on HumanMessage', async () => {
    const messages = fixture();
    await both(
      messages,
      {
        maxTokens: 30,
        tokenCounter: dummyTokenCounter,
        strategy: 'last',
        endOn: 'human',
        includeSystem: true,
        allowPartial: true,
      },
      [messages[0] as Message, SECOND_FIRST_BLOCK, messages[3] as Message],
    );
  });

  it('10. Last 40 tokens, including system message, allowing partial messages, start on HumanMessage', async () => {
    const messages = fixture();
    await both(
      messages,
      {
        maxTokens: 40,
        tokenCounter: dummyTokenCounter,
        strategy: 'last',
        includeSystem: true,
        allowPartial: true,
        startOn: 'human',
      },
      byId(messages, 'system', 'third', 'fourth'),
    );
  });

  it('11. can filter (startOn) with message classes', async () => {
    const messages = fixture();
    await both(
      messages,
      { maxTokens: 40, tokenCounter: dummyTokenCounter, startOn: [HumanMessage] },
      byId(messages, 'third', 'fourth'),
    );
  });

  it('12. can filter (endOn) with message classes', async () => {
    const messages = fixture();
    await both(
      messages,
      { maxTokens: 40, tokenCounter: dummyTokenCounter, endOn: [HumanMessage] },
      byId(messages, 'first', 'second', 'third'),
    );
  });

  it('13. can return a runnable if empty array is passed — chatfold has no Runnable: a typed error says how to bind options', () => {
    const options = { maxTokens: 40, tokenCounter: dummyTokenCounter };
    expect(typeof trimMessages(options as unknown as TrimMessagesFields).invoke).toBe('function');
    expect(() => trimToTokens(options as never, undefined as never)).toThrow(
      expect.objectContaining({
        code: 'E_INVALID_MESSAGES',
        message: expect.stringContaining('(messages) => trimToTokens(messages, options)'),
      }),
    );
  });

  it('14. supports a TextSplitter-style object as textSplitter (async splitText)', async () => {
    class FakeTextSplitter {
      separator = ' ';
      async splitText(value: string): Promise<string[]> {
        return value.split(this.separator).map((word, i, all) => (i < all.length - 1 ? `${word} ` : word));
      }
    }
    const messages: Message[] = [
      { id: 'h', role: 'user', parts: [text('aaaa bbbb cccc dddd eeee ffff gggg hhhh')], createdAt: '' },
    ];
    const words: NeutralCounter = (list) =>
      list.reduce(
        (n, m) =>
          n +
          (m.parts.length === 1 && m.parts[0]?.type === 'text'
            ? m.parts[0].text.split(/\s+/).filter(Boolean).length
            : 1),
        0,
      );
    const options = {
      maxTokens: 4,
      tokenCounter: words,
      strategy: 'first',
      allowPartial: true,
      textSplitter: new FakeTextSplitter(),
    } as const;
    const pending = trimToTokens(messages, options);
    expect(pending).toBeInstanceOf(Promise); // the splitter is async, so the result is too
    await both(messages, options, [{ ...(messages[0] as Message), parts: [text('aaaa bbbb cccc dddd ')] }]);
  });
});

// --- The same answers on random conversations, through both counter kinds. ---

const lines = fc
  .array(fc.stringMatching(/^[a-z ]{0,12}$/), { minLength: 1, maxLength: 4 })
  .map((l) => l.join('\n'));
const conversation = fc
  .tuple(
    fc.boolean(),
    fc.array(
      fc.record({
        role: fc.constantFrom('user' as const, 'assistant' as const, 'system' as const),
        texts: fc.array(lines, { minLength: 1, maxLength: 2 }),
      }),
      { maxLength: 12 },
    ),
  )
  .map(([hasSystem, turns]) => {
    const all = hasSystem ? [{ role: 'system' as const, texts: ['be brief\nplease'] }, ...turns] : turns;
    return all.map(
      (turn, i): Message => ({ id: `m${i}`, role: turn.role, parts: turn.texts.map(text), createdAt: '' }),
    );
  });
const types = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('human' as const, 'ai' as const, 'system' as const),
  fc.subarray(['human', 'ai', 'system'] as const, { minLength: 1 }),
);
const trimCase = fc
  .record({
    strategy: fc.constantFrom('last' as const, 'first' as const),
    maxTokens: fc.integer({ min: 0, max: 120 }),
    allowPartial: fc.boolean(),
    includeSystem: fc.boolean(),
    startOn: types,
    endOn: types,
    words: fc.boolean(),
  })
  .map(({ strategy, includeSystem, startOn, endOn, words, ...rest }) => ({
    ...rest,
    strategy,
    ...(strategy === 'last' && includeSystem ? { includeSystem } : {}),
    ...(strategy === 'last' && startOn !== undefined ? { startOn } : {}),
    ...(endOn === undefined ? {} : { endOn }),
    ...(words ? { textSplitter: (value: string) => value.split(/(?<= )/) } : {}),
  }));

describe('trimToTokens answers like LangChain.js trimMessages on tool-free conversations', () => {
  it('with a function counter and with a chatfold TokenCounter', async () => {
    await fc.assert(
      fc.asyncProperty(conversation, trimCase, async (messages, options) => {
        const counter = createMockTokenCounter({ countText: (value) => Math.ceil(value.length / 4) });
        const asFunction: NeutralCounter = (list) =>
          list.reduce((n, m) => n + counter.countMessage(m), counter.count([]).total);
        const expected = shape(await viaLangChain(messages, { ...options, tokenCounter: asFunction }));
        expect(shape(trimToTokens(messages, { ...options, tokenCounter: asFunction }))).toEqual(expected);
        expect(shape(trimToTokens(messages, { ...options, tokenCounter: counter }))).toEqual(expected);
      }),
      { numRuns: 400 },
    );
  });
});
