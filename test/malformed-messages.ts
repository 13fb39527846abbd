/**
 * A fast-check generator of malformed neutral messages (MSG-4, issue 9 §1): a valid
 * conversation with one to three corruptions from the classes an adversarial pass found —
 * nulls and wrong types anywhere, unknown roles and part types, tool arguments that are not
 * JSON or nest 10,000 deep, tool results whose content is a string or null, attachments
 * without a media type, metadata that is cyclic, deep or not JSON, lone surrogates, a 50 MB
 * message, a 1 MB run of one letter — plus structurally wrong but well-shaped input (orphans,
 * duplicate ids, parts in the wrong role, empty and blank text).
 */
import fc from 'fast-check';
import type { Message, Part } from '../src/messages/types.ts';

// biome-ignore lint/suspicious/noExplicitAny: the point is to build values the types forbid.
type Loose = any;

/** Nesting far past MAX_NESTING_DEPTH: what overflowed the stack inside zod and JSON.stringify. */
export const DEEP = 10_000;

let huge: string | undefined;
/** One shared 50 MB string (strings are immutable, so every case reuses it). */
export function hugeText(): string {
  huge ??= 'x'.repeat(50 * 1024 * 1024);
  return huge;
}

let run: string | undefined;
/** A 1 MB run of one letter: one pre-token, quadratic for BPE before long runs were cut. */
export function longRun(): string {
  run ??= 'a'.repeat(1024 * 1024);
  return run;
}

const deepArray = (depth: number): Loose => {
  let value: Loose = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};
const deepArgumentsText = (depth: number): string => `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
const cyclic = (): Loose => {
  const value: Loose = { a: 1 };
  value.self = value;
  return value;
};

const at = '2026-01-01T00:00:00.000Z';

type Step = 'user' | 'assistant' | 'tools' | 'attachment' | 'reasoning' | 'blank';

/** A valid conversation (the thing to corrupt): user turns, replies, tool rounds, files, reasoning. */
export const validConversation: fc.Arbitrary<Message[]> = fc
  .record({
    system: fc.boolean(),
    steps: fc.array(
      fc.constantFrom<Step>('user', 'assistant', 'tools', 'tools', 'attachment', 'reasoning', 'blank'),
      { minLength: 1, maxLength: 8 },
    ),
    text: fc.string({ maxLength: 20 }),
    calls: fc.integer({ min: 1, max: 3 }),
  })
  .map(({ system, steps, text, calls }) => {
    const messages: Message[] = [];
    let call = 0;
    const push = (role: Message['role'], parts: Part[]): void => {
      messages.push({ id: `m${messages.length}`, role, parts, createdAt: at });
    };
    if (system) push('system', [{ type: 'text', text: 'Be brief.' }]);
    push('user', [{ type: 'text', text: `start ${text}` }]);
    for (const step of steps) {
      switch (step) {
        case 'user':
          push('user', [{ type: 'text', text: `more ${text}` }]);
          break;
        case 'assistant':
          push('assistant', [{ type: 'text', text: `reply ${text}` }]);
          break;
        case 'blank':
          // Shapes Anthropic forbids but that mean nothing: an empty text beside a call.
          push('assistant', [
            { type: 'text', text: '' },
            { type: 'text', text: ' \n' },
          ]);
          push('user', [{ type: 'text', text: 'go on' }]);
          break;
        case 'tools': {
          const ids = Array.from({ length: calls }, () => `call_${call++}`);
          push('assistant', [
            { type: 'text', text: '' },
            ...ids.map(
              (id): Part => ({ type: 'tool-call', id, name: 'Read', arguments: `{"path":"${id}.ts"}` }),
            ),
          ]);
          for (const id of ids) {
            push('tool', [
              {
                type: 'tool-result',
                callId: id,
                toolName: 'Read',
                content: [{ type: 'text', text: `content of ${id}` }],
              },
            ]);
          }
          break;
        }
        case 'attachment':
          push('user', [
            { type: 'text', text: 'see the picture' },
            { type: 'attachment', kind: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
          ]);
          break;
        case 'reasoning':
          push('assistant', [
            { type: 'reasoning', text: 'thinking', signature: 'sig' },
            { type: 'text', text: 'answer' },
          ]);
          break;
      }
    }
    return messages;
  });

/** Finds a part of `type` at or after message `from` (wrapping), or adds a message that has one. */
function partOf(messages: Loose[], type: Part['type'], from: number): Loose {
  for (let k = 0; k < messages.length; k++) {
    const message = messages[(from + k) % messages.length];
    if (typeof message !== 'object' || message === null || !Array.isArray(message.parts)) continue;
    const part = message.parts.find((p: Loose) => typeof p === 'object' && p !== null && p.type === type);
    if (part !== undefined) return part;
  }
  const fresh: Record<Part['type'], Loose> = {
    text: { type: 'text', text: 'added' },
    attachment: { type: 'attachment', kind: 'file', mediaType: 'application/pdf', data: 'JVBERi0=' },
    'tool-call': { type: 'tool-call', id: 'added_call', name: 'Read', arguments: '{}' },
    'tool-result': { type: 'tool-result', callId: 'added_call', content: [{ type: 'text', text: 'ok' }] },
    reasoning: { type: 'reasoning', text: 'hmm' },
  };
  const role =
    type === 'tool-result' ? 'tool' : type === 'tool-call' || type === 'reasoning' ? 'assistant' : 'user';
  const part = fresh[type];
  messages.splice(from % (messages.length + 1), 0, {
    id: `added_${type}`,
    role,
    parts: [part],
    createdAt: at,
  });
  return part;
}

/** A message object at `index` (wrapping), or undefined when there is none left to corrupt. */
function messageAt(messages: Loose[], index: number): Loose {
  for (let k = 0; k < messages.length; k++) {
    const message = messages[(index + k) % messages.length];
    if (typeof message === 'object' && message !== null && !Array.isArray(message)) return message;
  }
  return undefined;
}

/** One corruption: returns the new input (or mutates `messages` in place and returns it). */
type Corrupt = (messages: Loose[], index: number) => unknown;

const onMessage =
  (change: (message: Loose) => void): Corrupt =>
  (messages, index) => {
    const message = messageAt(messages, index);
    if (message !== undefined) change(message);
    return messages;
  };
const onPart =
  (type: Part['type'], change: (part: Loose) => void): Corrupt =>
  (messages, index) => {
    change(partOf(messages, type, index));
    return messages;
  };
const replaceMessage =
  (value: () => unknown): Corrupt =>
  (messages, index) => {
    if (messages.length > 0) messages[index % messages.length] = value();
    return messages;
  };
const replacePart =
  (value: () => unknown): Corrupt =>
  (messages, index) => {
    const message = messageAt(messages, index);
    if (message !== undefined && Array.isArray(message.parts) && message.parts.length > 0) {
      message.parts[index % message.parts.length] = value();
    }
    return messages;
  };

/** Every corruption by name, so a failing case says what it was. */
export const CORRUPTIONS: Readonly<Record<string, Corrupt>> = {
  // The input itself
  'input: null': () => null,
  'input: undefined': () => undefined,
  'input: a string': () => 'hello',
  'input: an object': (messages) => ({ messages }),
  'input: a number': () => 42,
  // A message
  'message: null': replaceMessage(() => null),
  'message: a number': replaceMessage(() => 7),
  'message: a string': replaceMessage(() => 'hi'),
  'message: an array': replaceMessage(() => [{ type: 'text', text: 'hi' }]),
  'message: a hole': (messages, index) => {
    if (messages.length > 0) delete messages[index % messages.length];
    return messages;
  },
  'id: null': onMessage((m) => {
    m.id = null;
  }),
  'id: a number': onMessage((m) => {
    m.id = 42;
  }),
  'id: missing': onMessage((m) => {
    delete m.id;
  }),
  "role: 'wizard'": onMessage((m) => {
    m.role = 'wizard';
  }),
  "role: 'developer'": onMessage((m) => {
    m.role = 'developer';
  }),
  'role: null': onMessage((m) => {
    m.role = null;
  }),
  'role: missing': onMessage((m) => {
    delete m.role;
  }),
  'parts: null': onMessage((m) => {
    m.parts = null;
  }),
  'parts: missing': onMessage((m) => {
    delete m.parts;
  }),
  'parts: a string': onMessage((m) => {
    m.parts = 'hello';
  }),
  'parts: an object': onMessage((m) => {
    m.parts = { 0: { type: 'text', text: 'x' }, length: 1 };
  }),
  'parts: empty': onMessage((m) => {
    m.parts = [];
  }),
  'createdAt: null': onMessage((m) => {
    m.createdAt = null;
  }),
  'createdAt: missing': onMessage((m) => {
    delete m.createdAt;
  }),
  'name: a number': onMessage((m) => {
    m.name = 3;
  }),
  'pinned: a string': onMessage((m) => {
    m.pinned = 'yes';
  }),
  'usage: a string': onMessage((m) => {
    m.usage = 'lots';
  }),
  'usage: NaN tokens': onMessage((m) => {
    m.usage = { inputTokens: Number.NaN };
  }),
  // A part
  'part: null': replacePart(() => null),
  'part: a number': replacePart(() => 1),
  'part: a string': replacePart(() => 'text'),
  "part: type 'video'": replacePart(() => ({ type: 'video', url: 'x' })),
  'part: no type': replacePart(() => ({ text: 'x' })),
  'part: a hole': (messages, index) => {
    const message = messageAt(messages, index);
    if (message !== undefined && Array.isArray(message.parts) && message.parts.length > 0) {
      delete message.parts[index % message.parts.length];
    }
    return messages;
  },
  // Text
  'text: null': onPart('text', (p) => {
    p.text = null;
  }),
  'text: 42': onPart('text', (p) => {
    p.text = 42;
  }),
  'text: missing': onPart('text', (p) => {
    delete p.text;
  }),
  'text: an object': onPart('text', (p) => {
    p.text = { value: 'x' };
  }),
  'text: empty': onPart('text', (p) => {
    p.text = '';
  }),
  'text: blank': onPart('text', (p) => {
    p.text = ' \t\n';
  }),
  'text: lone surrogates': onPart('text', (p) => {
    p.text = 'a\ud800b\udc00c\ud83d';
  }),
  'text: 50 MB': onPart('text', (p) => {
    p.text = hugeText();
  }),
  'text: a 1 MB run of one letter': onPart('text', (p) => {
    p.text = longRun();
  }),
  // Tool calls
  "arguments: '{bad'": onPart('tool-call', (p) => {
    p.arguments = '{bad';
  }),
  'arguments: empty': onPart('tool-call', (p) => {
    p.arguments = '';
  }),
  'arguments: a JSON scalar': onPart('tool-call', (p) => {
    p.arguments = '42';
  }),
  'arguments: 10,000 deep': onPart('tool-call', (p) => {
    p.arguments = deepArgumentsText(DEEP);
  }),
  'arguments: an object': onPart('tool-call', (p) => {
    p.arguments = { path: 'a.ts' };
  }),
  'arguments: null': onPart('tool-call', (p) => {
    p.arguments = null;
  }),
  'call id: null': onPart('tool-call', (p) => {
    p.id = null;
  }),
  'call name: missing': onPart('tool-call', (p) => {
    delete p.name;
  }),
  // Tool results
  'result content: a string': onPart('tool-result', (p) => {
    p.content = 'output';
  }),
  'result content: null': onPart('tool-result', (p) => {
    p.content = null;
  }),
  'result content: [null]': onPart('tool-result', (p) => {
    p.content = [null];
  }),
  'result content: a tool call inside': onPart('tool-result', (p) => {
    p.content = [{ type: 'tool-call', id: 'x', name: 'y', arguments: '{}' }];
  }),
  'result callId: a number': onPart('tool-result', (p) => {
    p.callId = 5;
  }),
  'result: an orphan': onPart('tool-result', (p) => {
    p.callId = 'nobody_called_this';
  }),
  // Attachments and reasoning
  'attachment: no mediaType': onPart('attachment', (p) => {
    delete p.mediaType;
  }),
  "attachment: kind 'video'": onPart('attachment', (p) => {
    p.kind = 'video';
  }),
  'attachment: size a string': onPart('attachment', (p) => {
    p.size = '10 KB';
  }),
  'reasoning: text null': onPart('reasoning', (p) => {
    p.text = null;
  }),
  // Metadata and unknown keys
  'metadata: cyclic': onMessage((m) => {
    m.metadata = cyclic();
  }),
  'metadata: 10,000 deep': onMessage((m) => {
    m.metadata = { deep: deepArray(DEEP) };
  }),
  'metadata: a bigint': onMessage((m) => {
    m.metadata = { n: 10n };
  }),
  'metadata: a Date': onMessage((m) => {
    m.metadata = { at: new Date(0) };
  }),
  'metadata: a function': onMessage((m) => {
    m.metadata = { f: () => 1 };
  }),
  'providerMetadata: null': onMessage((m) => {
    m.providerMetadata = null;
  }),
  'providerMetadata: a string inside': onMessage((m) => {
    m.providerMetadata = { openai: 'x' };
  }),
  'providerMetadata: 10,000 deep on a part': onPart('text', (p) => {
    p.providerMetadata = { openai: { deep: deepArray(DEEP) } };
  }),
  'unknown key: cyclic': onMessage((m) => {
    m.extra = cyclic();
  }),
  'unknown key: undefined': onMessage((m) => {
    m.extra = undefined;
  }),
  // Well-shaped but structurally wrong
  'structure: duplicate id': (messages) => {
    const first = messageAt(messages, 0);
    const second = messageAt(messages, 1);
    if (first !== undefined && second !== undefined) second.id = first.id;
    return messages;
  },
  'structure: tool call in a user message': onMessage((m) => {
    m.role = 'user';
    m.parts = [{ type: 'tool-call', id: 'u_call', name: 'Read', arguments: '{}' }];
  }),
  'structure: tool result in an assistant message': onMessage((m) => {
    m.role = 'assistant';
    m.parts = [{ type: 'tool-result', callId: 'call_0', content: [] }];
  }),
  'structure: roles swapped': onMessage((m) => {
    m.role = m.role === 'user' ? 'assistant' : 'user';
  }),
};

/** A corruption name with where it applies. */
export interface Corruption {
  readonly name: string;
  readonly index: number;
}

/** Applies corruptions to a deep copy of a conversation. */
export function corrupt(conversation: readonly Message[], corruptions: readonly Corruption[]): unknown {
  let value: unknown = structuredClone(conversation);
  for (const { name, index } of corruptions) {
    if (!Array.isArray(value)) break;
    value = (CORRUPTIONS[name] as Corrupt)(value, index);
  }
  return value;
}

/**
 * A malformed case: a valid conversation and one to three corruptions by name. The input is
 * built with {@link corrupt} inside the property, so a counterexample prints the names (not a
 * 50 MB string or a 10,000-deep array).
 */
export const malformedCases: fc.Arbitrary<{
  readonly conversation: readonly Message[];
  readonly corruptions: readonly Corruption[];
}> = fc.record({
  conversation: validConversation,
  corruptions: fc.array(
    fc.record({ name: fc.constantFrom(...Object.keys(CORRUPTIONS)), index: fc.nat({ max: 40 }) }),
    { minLength: 1, maxLength: 3 },
  ),
});

/** Corruptions that keep every shape valid (what a converter must handle, not refuse). */
export const WELL_SHAPED_CORRUPTIONS: readonly string[] = [
  'parts: empty',
  'text: empty',
  'text: blank',
  'text: lone surrogates',
  'arguments: a JSON scalar',
  'result: an orphan',
  'unknown key: undefined',
  'structure: duplicate id',
  'structure: tool call in a user message',
  'structure: tool result in an assistant message',
  'structure: roles swapped',
];

/** Well-shaped cases: a valid conversation with zero to three shape-keeping corruptions. */
export const wellShapedCases: fc.Arbitrary<{
  readonly conversation: readonly Message[];
  readonly corruptions: readonly Corruption[];
}> = fc.record({
  conversation: validConversation,
  corruptions: fc.array(
    fc.record({ name: fc.constantFrom(...WELL_SHAPED_CORRUPTIONS), index: fc.nat({ max: 40 }) }),
    { maxLength: 3 },
  ),
});
