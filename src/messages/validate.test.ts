import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createEngineCache } from './engine-cache.ts';
import type { Message, Part, Provider } from './types.ts';
import { assertValid, VALIDATION_PROBLEM_KINDS, type ValidationProblemKind, validate } from './validate.ts';

const PROVIDERS: readonly (Provider | undefined)[] = [undefined, 'openai', 'anthropic', 'gemini'];

let seq = 0;
const at = '2026-01-01T00:00:00.000Z';
const user = (text: string, id = `u${seq++}`): Message => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
  createdAt: at,
});
const system = (text: string, id = `s${seq++}`): Message => ({
  id,
  role: 'system',
  parts: [{ type: 'text', text }],
  createdAt: at,
});
const assistant = (parts: Part[] | string, id = `a${seq++}`): Message => ({
  id,
  role: 'assistant',
  parts: typeof parts === 'string' ? [{ type: 'text', text: parts }] : parts,
  createdAt: at,
});
const call = (id: string, name = 'Read'): Part => ({ type: 'tool-call', id, name, arguments: '{}' });
const result = (callId: string): Part => ({
  type: 'tool-result',
  callId,
  content: [{ type: 'text', text: `result of ${callId}` }],
});
const tool = (callIds: string[] | string, id = `t${seq++}`): Message => ({
  id,
  role: 'tool',
  parts: (typeof callIds === 'string' ? [callIds] : callIds).map(result),
  createdAt: at,
});

/** kind@index[:callId] for compact assertions. */
const summary = (messages: Message[], provider?: Provider, allowPendingToolCalls = false): string[] =>
  validate(messages, {
    ...(provider === undefined ? {} : { provider }),
    allowPendingToolCalls,
  }).map((p) => `${p.kind}@${p.index}${p.callId === undefined ? '' : `:${p.callId}`}`);

describe('validate (MSG-3): rules every provider shares', () => {
  it('accepts a conversation with parallel tool calls for every provider', () => {
    const messages = buildConversation()
      .system('s')
      .user('goal')
      .toolRound([
        { name: 'Read', args: { file_path: 'a' }, result: 'A' },
        { name: 'Read', args: { file_path: 'b' }, result: 'B' },
        { name: 'Grep', args: { pattern: 'x' }, result: 'x:1' },
      ])
      .assistant('done')
      .build();
    for (const provider of PROVIDERS) expect(summary(messages, provider)).toEqual([]);
  });

  it('accepts parallel results in any order, and several results in one tool message', () => {
    const messages = [
      user('go'),
      assistant([call('a'), call('b'), call('c')]),
      tool(['c', 'a']),
      tool('b'),
      assistant('ok'),
    ];
    for (const provider of PROVIDERS) expect(summary(messages, provider)).toEqual([]);
  });

  it('reports an orphan result with index, message id and call id, for every provider', () => {
    const messages = [user('go'), tool('x', 'orphan'), assistant('hm')];
    for (const provider of PROVIDERS) {
      expect(validate(messages, provider === undefined ? {} : { provider })).toEqual([
        expect.objectContaining({ kind: 'orphan-tool-result', index: 1, messageId: 'orphan', callId: 'x' }),
      ]);
    }
  });

  it('reports a result that arrives after a user message interrupted the turn as orphan, and the call as missing', () => {
    const messages = [user('go'), assistant([call('a')]), user('wait'), tool('a')];
    for (const provider of PROVIDERS) {
      expect(summary(messages, provider)).toEqual(['missing-tool-result@1:a', 'orphan-tool-result@3:a']);
    }
    expect(validate(messages)[1]?.message).toMatch(/made at messages\[1\]/);
  });

  it('reports a result whose call only comes later as result-before-call', () => {
    const messages = [user('go'), tool('a'), assistant([call('a')]), assistant('x')];
    for (const provider of PROVIDERS.filter((p) => p !== 'openai')) {
      expect(summary(messages, provider)).toEqual(['result-before-call@1:a', 'missing-tool-result@2:a']);
    }
  });

  it('reports calls without results, and allows only the trailing turn in flight when asked', () => {
    const inFlight = [user('go'), assistant([call('a'), call('b')])];
    for (const provider of PROVIDERS) {
      expect(summary(inFlight, provider)).toEqual(['missing-tool-result@1:a', 'missing-tool-result@1:b']);
      expect(summary(inFlight, provider, true)).toEqual([]);
    }
    // one of two parallel calls answered, the other still running: in flight
    expect(summary([...inFlight, tool('a')], undefined, true)).toEqual([]);
    // an earlier turn left unanswered is never "in flight"
    const earlier = [user('go'), assistant([call('a'), call('b')]), tool('a'), user('next')];
    expect(summary(earlier, undefined, true)).toEqual(['missing-tool-result@1:b']);
    expect(validate(earlier)[0]?.message).toMatch(/before messages\[3\]/);
  });

  it('reports duplicate message ids, naming the first use', () => {
    const messages = [user('a', 'same'), assistant('b'), user('c', 'same')];
    for (const provider of PROVIDERS) expect(summary(messages, provider)).toEqual(['duplicate-id@2']);
    expect(validate(messages)[0]?.message).toMatch(/of messages\[0\]/);
  });

  it('reports a tool call id used twice in one turn, and a second result for one call', () => {
    const twice = [user('go'), assistant([call('c')]), assistant([call('c')]), tool('c'), assistant('x')];
    expect(summary(twice)).toEqual(['duplicate-id@2:c']);
    const twoResults = [user('go'), assistant([call('c')]), tool('c'), tool('c'), assistant('x')];
    for (const provider of PROVIDERS) expect(summary(twoResults, provider)).toEqual(['duplicate-id@3:c']);
  });

  it('accepts call ids reused across turns except for Anthropic, which wants them unique per request', () => {
    // SWE-agent trajectories reuse call ids across turns and OpenAI accepts them.
    const messages = [user('go'), assistant([call('c')]), tool('c'), assistant([call('c')]), tool('c')];
    expect(summary(messages)).toEqual([]);
    expect(summary(messages, 'openai')).toEqual([]);
    expect(summary(messages, 'gemini')).toEqual([]);
    expect(summary(messages, 'anthropic')).toEqual(['duplicate-id@3:c']);
  });

  it('reports empty messages, but not an assistant message with only tool calls or a signed thinking block', () => {
    const messages: Message[] = [
      user('  \n'),
      { ...assistant([]), id: 'empty' },
      assistant([call('a')]),
      tool('a'),
      assistant([{ type: 'reasoning', text: '', signature: 'sig' }]),
      user('ok'),
    ];
    for (const provider of PROVIDERS) {
      // toAnthropic leaves empty messages out, so its first turn would be the assistant's.
      const order = provider === 'anthropic' ? ['illegal-role-order@2'] : [];
      expect(summary(messages, provider)).toEqual(['empty-message@0', 'empty-message@1', ...order]);
    }
  });

  it('reports tool-call arguments that are not JSON or nest too deep as invalid-tool-arguments (MSG-4)', () => {
    const bad: Part = { type: 'tool-call', id: 'b', name: 'Read', arguments: '{bad' };
    const deep: Part = {
      type: 'tool-call',
      id: 'd',
      name: 'Read',
      arguments: `{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    };
    const messages = [user('go'), assistant([bad, deep]), tool(['b', 'd'])];
    for (const provider of PROVIDERS) {
      expect(summary(messages, provider)).toEqual([
        'invalid-tool-arguments@1:b',
        'invalid-tool-arguments@1:d',
      ]);
    }
    const [notJson, tooDeep] = validate(messages);
    expect(notJson?.message).toMatch(/messages\[1\]\.parts\[0\]\.arguments \(call id b\) are not valid JSON/);
    expect(tooDeep?.message).toMatch(/nest more than 256 levels deep/);
    expect(() => assertValid(messages)).toThrow(expect.objectContaining({ code: 'E_INVALID_MESSAGES' }));
  });

  it('reports parts that do not suit the role', () => {
    const messages: Message[] = [
      { id: 'u', role: 'user', parts: [call('a')], createdAt: at },
      { id: 's', role: 'system', parts: [{ type: 'reasoning', text: 'r' }], createdAt: at },
      { id: 't', role: 'tool', parts: [{ type: 'text', text: 'x' }], createdAt: at },
    ];
    expect(summary(messages)).toEqual(['invalid-part@0', 'invalid-part@1', 'invalid-part@2']);
    expect(validate(messages)[0]?.message).toBe(
      'messages[0] (user) holds a tool-call part; user messages take text and attachment parts',
    );
  });

  it('throws E_INVALID_MESSAGE for a message with an unknown role or without parts, instead of crashing', () => {
    const bad = [{ id: 'x', role: 'robot', parts: [], createdAt: at }] as unknown as Message[];
    expect(() => validate(bad)).toThrow(/messages\[0\].*role "robot"/);
    const noParts = [{ id: 'x', role: 'user', createdAt: at }] as unknown as Message[];
    expect(() => validate(noParts)).toThrow(ChatfoldError);
    expect(() => validate('nope' as unknown as Message[])).toThrow(
      /expected an array of messages, received string/,
    );
    // a bad message after an orphan (which makes validate look ahead) still gets the typed error
    const later = [user('go'), tool('x'), null] as unknown as Message[];
    expect(() => validate(later)).toThrow(/messages\[2\]: expected object, received null/);
  });
});

describe('validate (MSG-3): provider role order', () => {
  it('openai: system messages anywhere, conversation may start with an assistant message', () => {
    const messages = [system('a'), assistant('hi'), user('q'), system('late'), assistant('a')];
    expect(summary(messages, 'openai')).toEqual([]);
  });

  it('openai: tool messages must directly follow the assistant message with the calls', () => {
    const messages = [
      user('go'),
      assistant([call('a')]),
      assistant('still thinking'),
      tool('a'),
      assistant('x'),
    ];
    expect(summary(messages, 'openai')).toEqual(['illegal-role-order@3:a']);
    expect(validate(messages, { provider: 'openai' })[0]?.message).toMatch(
      /messages\[2\] \(assistant\) comes between/,
    );
    // Anthropic and Gemini merge the two assistant messages into one turn: fine there.
    expect(summary(messages, 'anthropic')).toEqual([]);
    expect(summary(messages, 'gemini')).toEqual([]);
    expect(summary(messages)).toEqual([]);
    // calls never answered: reported once, as missing, not also as an order problem
    const unanswered = [user('go'), assistant([call('a')]), assistant('hm'), user('next')];
    expect(summary(unanswered, 'openai')).toEqual(['missing-tool-result@1:a']);
    // text first, then the calls: fine for OpenAI too
    const textFirst = [user('go'), assistant('let me look'), assistant([call('a')]), tool('a')];
    expect(summary(textFirst, 'openai')).toEqual([]);
  });

  it.each(['anthropic', 'gemini'] as const)('%s: system only at the start', (provider) => {
    const messages = [system('a'), system('b'), user('q'), assistant('a'), system('late')];
    expect(summary(messages, provider)).toEqual(['illegal-role-order@4']);
    expect(validate(messages, { provider })[0]?.message).toMatch(/only leading system messages/);
  });

  it.each(['anthropic', 'gemini'] as const)('%s: the first turn is a user turn', (provider) => {
    expect(summary([system('s'), assistant('hi'), user('q')], provider)).toEqual(['illegal-role-order@1']);
    expect(summary([user('q'), user('again'), assistant('a'), assistant('b')], provider)).toEqual([]);
  });

  it('anthropic: blank text parts are no problem, toAnthropic leaves them out (MSG-4)', () => {
    const messages = [user('go'), assistant([{ type: 'text', text: '' }, call('a')]), tool('a')];
    expect(summary(messages, 'anthropic')).toEqual([]);
    expect(summary(messages, 'openai')).toEqual([]);
    const spaced = [user('go'), assistant([{ type: 'text', text: '\n\n' }, call('a')]), tool('a')];
    expect(summary(spaced, 'anthropic')).toEqual([]);
  });

  it('anthropic: the first non-empty turn must be a user turn, as toAnthropic drops empty ones', () => {
    expect(summary([user(' '), assistant('hi'), user('q')], 'anthropic')).toEqual([
      'empty-message@0',
      'illegal-role-order@1',
    ]);
    expect(summary([user(' '), assistant('hi'), user('q')], 'gemini')).toEqual(['empty-message@0']);
  });
});

describe('validate options and ordering', () => {
  it('skips ignored problem kinds', () => {
    const messages = [user('a'), assistant(' ')];
    expect(summary(messages)).toEqual(['empty-message@1']);
    expect(validate(messages, { ignore: ['empty-message'] })).toEqual([]);
  });

  it('returns problems ordered by message index', () => {
    // the missing result of messages[1] is only known after the orphan at messages[2] was seen
    const messages = [user('go'), assistant([call('a')]), tool('z'), user('x', 'dup'), user('y', 'dup')];
    expect(summary(messages)).toEqual([
      'missing-tool-result@1:a',
      'orphan-tool-result@2:z',
      'duplicate-id@4',
    ]);
  });

  it('lists every kind in VALIDATION_PROBLEM_KINDS', () => {
    // A Record over the union fails to compile when a kind is added without being listed here.
    const kinds: Record<ValidationProblemKind, true> = {
      'orphan-tool-result': true,
      'result-before-call': true,
      'missing-tool-result': true,
      'duplicate-id': true,
      'empty-message': true,
      'illegal-role-order': true,
      'invalid-part': true,
      'invalid-tool-arguments': true,
    };
    expect([...VALIDATION_PROBLEM_KINDS].sort()).toEqual(Object.keys(kinds).sort());
  });
});

describe('assertValid', () => {
  it('returns quietly for a valid conversation', () => {
    expect(() => assertValid([user('hi'), assistant('hello')], { provider: 'anthropic' })).not.toThrow();
  });

  it('throws E_INVALID_MESSAGES with every problem in details and the first three in the message', () => {
    const messages = [assistant('first'), tool('x1'), tool('x2'), tool('x3'), tool('x4')];
    let thrown: unknown;
    try {
      assertValid(messages, { provider: 'anthropic' });
    } catch (error) {
      thrown = error;
    }
    expect(ChatfoldError.hasCode(thrown, 'E_INVALID_MESSAGES')).toBe(true);
    const error = thrown as ChatfoldError;
    expect(error.details.provider).toBe('anthropic');
    expect((error.details.problems as unknown[]).length).toBe(5);
    expect(error.message).toMatch(/^invalid conversation \(5 problems for anthropic\): illegal-role-order: /);
    expect(error.message).toMatch(/; and 2 more in details\.problems$/);
    expect(error.message).not.toMatch(/x3/);
  });
});

describe('validate with a cache (a list validated again)', () => {
  it('answers a list of the same messages as before, and validates one ending at the same message but holding others', () => {
    const cache = createEngineCache();
    const goal = user('go');
    const ask = assistant([call('c1')]);
    const answer = tool('c1');
    const last = assistant('done');
    const valid = [goal, ask, answer, last];
    expect(validate(valid, { cache })).toEqual([]);
    expect(validate([...valid], { cache })).toEqual([]);
    // Same last message object, the tool result left out: the call is unanswered.
    const broken = [goal, ask, last];
    expect(validate(broken, { cache }).map((p) => `${p.kind}@${p.index}`)).toEqual(['missing-tool-result@1']);
    expect(validate([...broken], { cache }).map((p) => `${p.kind}@${p.index}`)).toEqual([
      'missing-tool-result@1',
    ]);
    // Other rules, same messages: not the remembered answer.
    expect(validate(broken, { cache, allowPendingToolCalls: true, ignore: ['missing-tool-result'] })).toEqual(
      [],
    );
    expect(validate(valid, { cache })).toEqual([]);
  });

  it('hands out its own problem objects each time', () => {
    const cache = createEngineCache();
    const broken = [user('go'), assistant([call('c9')]), assistant('done')];
    const first = validate(broken, { cache });
    (first[0] as { message: string }).message = 'changed by the caller';
    expect(validate(broken, { cache })[0]?.message).not.toBe('changed by the caller');
  });
});
