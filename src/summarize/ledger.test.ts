import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEngineCache } from '../messages/engine-cache.ts';
import type { Message } from '../messages/types.ts';
import { DEFAULT_LEDGER_CAPS, EMPTY_LEDGER, extractLedger, outputPathsIn } from './ledger.ts';
import type { FactKind, FactLedger } from './types.ts';

const KEYS = Object.keys(DEFAULT_LEDGER_CAPS) as FactKind[];
const UNCAPPED = Object.fromEntries(KEYS.map((key) => [key, Number.MAX_SAFE_INTEGER])) as Record<
  FactKind,
  number
>;

/**
 * The ledger as defined: every fact of the previous ledger and then of each message, oldest
 * first, kept once at its last occurrence; each kind's newest `cap` facts.
 */
function reference(messages: readonly Message[], previous: FactLedger, caps: typeof DEFAULT_LEDGER_CAPS) {
  const lists = KEYS.map((key) => {
    const order = new Map<string, true>();
    const add = (item: string) => {
      if (item === '') return;
      order.delete(item);
      order.set(item, true);
    };
    for (const item of previous[key] ?? []) add(item);
    for (const message of messages)
      for (const item of extractLedger([message], EMPTY_LEDGER, UNCAPPED)[key] ?? []) add(item);
    const all = [...order.keys()];
    return [key, all.slice(Math.max(0, all.length - caps[key]))] as const;
  });
  // A kind is left out when it has more facts than its cap, or the previous ledger had already left some out.
  const leftOut = KEYS.filter((key) => {
    if (caps[key] === 0) return false;
    if (previous.leftOut?.includes(key) === true) return true;
    return (
      new Set(
        [
          ...(previous[key] ?? []),
          ...messages.flatMap((m) => extractLedger([m], EMPTY_LEDGER, UNCAPPED)[key] ?? []),
        ].filter((i) => i !== ''),
      ).size > caps[key]
    );
  });
  return { ...Object.fromEntries(lists), ...(leftOut.length === 0 ? {} : { leftOut }) };
}

const FILES = ['src/a.ts', 'src/b.ts', 'README.md', 'lib/c.js', 'test/d.test.ts'];
const COMMANDS = ['npm test', 'git status', 'ls -la', 'cargo build', 'make'];

const messageArbitrary = fc
  .record({
    kind: fc.constantFrom('read', 'write', 'bash', 'text', 'error'),
    file: fc.constantFrom(...FILES),
    command: fc.constantFrom(...COMMANDS),
    number: fc.nat({ max: 50 }),
  })
  .map(({ kind, file, command, number }) => ({ kind, file, command, number }));

function build(specs: readonly { kind: string; file: string; command: string; number: number }[]): Message[] {
  const createdAt = '2026-01-01T00:00:00.000Z';
  return specs.flatMap((spec, i): Message[] => {
    if (spec.kind === 'text') {
      return [
        {
          id: `t${i}`,
          role: 'assistant',
          createdAt,
          parts: [
            {
              type: 'text',
              text: `Ran ${spec.number} tests in ${spec.number} ms, see \`${spec.file}\` and #${spec.number}`,
            },
          ],
        },
      ];
    }
    const name = spec.kind === 'read' ? 'Read' : spec.kind === 'write' ? 'Write' : 'Bash';
    const args =
      spec.kind === 'bash' || spec.kind === 'error' ? { command: spec.command } : { file_path: spec.file };
    return [
      {
        id: `c${i}`,
        role: 'assistant',
        createdAt,
        parts: [{ type: 'tool-call', id: `call${i}`, name, arguments: JSON.stringify(args) }],
      },
      {
        id: `r${i}`,
        role: 'tool',
        createdAt,
        parts: [
          {
            type: 'tool-result',
            callId: `call${i}`,
            ...(spec.kind === 'error' ? { isError: true } : {}),
            content: [
              {
                type: 'text',
                text: spec.kind === 'error' ? `Error: exit ${spec.number}` : `${spec.number} lines`,
              },
            ],
          },
        ],
      },
    ];
  });
}

describe('extractLedger (SUM-4)', () => {
  it('property: reading newest first and stopping when full equals the whole-span definition', () => {
    const caps = fc.record(
      Object.fromEntries(KEYS.map((key) => [key, fc.nat({ max: 6 })])) as Record<
        FactKind,
        fc.Arbitrary<number>
      >,
    );
    const ledger = fc.record(
      {
        ...(Object.fromEntries(
          KEYS.map((key) => [key, fc.array(fc.constantFrom(...FILES, ...COMMANDS, 'x'), { maxLength: 5 })]),
        ) as Record<FactKind, fc.Arbitrary<string[]>>),
        leftOut: fc.subarray(KEYS),
      },
      { requiredKeys: KEYS },
    );
    fc.assert(
      fc.property(fc.array(messageArbitrary, { maxLength: 30 }), ledger, caps, (specs, previous, cap) => {
        const messages = build(specs);
        expect(extractLedger(messages, previous, cap)).toEqual(reference(messages, previous, cap));
        expect(extractLedger(messages, previous)).toEqual(reference(messages, previous, DEFAULT_LEDGER_CAPS));
      }),
      { numRuns: 400 },
    );
  });

  it('property: with one cache, spans that share message objects (and their last one) read as alone', () => {
    // A pool of message objects; each span is a random pick ending at a random one of them, so
    // the memo of a span ending at the same message is met with other messages in front.
    fc.assert(
      fc.property(
        fc.array(messageArbitrary, { minLength: 1, maxLength: 12 }),
        fc.array(
          fc.record({
            picks: fc.array(fc.nat(), { maxLength: 8 }),
            last: fc.nat(),
            previous: fc.constantFrom<FactLedger>(EMPTY_LEDGER, { ...EMPTY_LEDGER, filesRead: ['old.ts'] }),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        (specs, spans) => {
          const pool = build(specs);
          const cache = createEngineCache();
          for (const { picks, last, previous } of spans) {
            const span = [...picks, last].map((pick) => pool[pick % pool.length] as Message);
            const expected = reference(span, previous, DEFAULT_LEDGER_CAPS);
            expect(extractLedger(span, previous, DEFAULT_LEDGER_CAPS, cache)).toEqual(expected);
            expect(extractLedger([...span], previous, DEFAULT_LEDGER_CAPS, cache)).toEqual(expected);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads URLs in the head and tail of a long output, not in its middle', () => {
    const filler = 'x'.repeat(30_000);
    const text = `see https://head.example/a ${filler} https://middle.example/b ${filler} https://tail.example/c`;
    const message: Message = {
      id: 'm1',
      role: 'tool',
      createdAt: '2026-01-01T00:00:00.000Z',
      parts: [{ type: 'tool-result', callId: 'c1', content: [{ type: 'text', text }] }],
    };
    expect(extractLedger([message]).urls).toEqual(['https://head.example/a', 'https://tail.example/c']);
  });

  it('hands out a remembered ledger frozen', () => {
    const cache = createEngineCache();
    const messages = build([{ kind: 'read', file: 'src/a.ts', command: '', number: 1 }]);
    const first = extractLedger(messages, EMPTY_LEDGER, DEFAULT_LEDGER_CAPS, cache);
    expect(extractLedger([...messages], EMPTY_LEDGER, DEFAULT_LEDGER_CAPS, cache)).toBe(first);
    expect(Object.isFrozen(first.filesRead)).toBe(true);
  });

  it('keeps the newest facts at their last occurrence, the previous ledger first', () => {
    const messages = build([
      { kind: 'read', file: 'src/a.ts', command: '', number: 1 },
      { kind: 'read', file: 'src/b.ts', command: '', number: 1 },
      { kind: 'read', file: 'src/a.ts', command: '', number: 1 },
    ]);
    const result = extractLedger(messages, { ...EMPTY_LEDGER, filesRead: ['old.ts', 'src/b.ts'] });
    expect(result.filesRead).toEqual(['old.ts', 'src/b.ts', 'src/a.ts']);
  });
});

describe('outputPathsIn', () => {
  const OUTPUT_PATH = /(?<![\w.:/-])(?:\.{1,2}\/|\/)?(?:[\w.-]+\/)+[\w.-]*\w\.[A-Za-z][\w]{0,7}(?![\w/])/g;

  it('finds exactly what the pattern finds over the whole text (property)', () => {
    // Texts dense in the characters the pattern and its look-arounds read.
    const piece = fc.oneof(
      fc.constantFrom(
        '/',
        './',
        '../',
        '.',
        '-',
        '_',
        ':',
        ' ',
        '\n',
        'a',
        'Z',
        '9',
        'é',
        'src/',
        '.ts',
        'http://',
      ),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        expect(outputPathsIn(text)).toEqual([...text.matchAll(OUTPUT_PATH)].map((match) => match[0]));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads paths at the edges and next to a colon as the pattern does', () => {
    expect(outputPathsIn('src/a.ts')).toEqual(['src/a.ts']);
    expect(outputPathsIn('x:src/a.ts ./b/c.py\n/abs/d.md')).toEqual(['./b/c.py', '/abs/d.md']);
  });
});
