import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { counterFor } from '../tokens/count-tokens.ts';
import { fitLedger } from './fit-ledger.ts';
import { emptyFactLists, LEDGER_KEYS } from './ledger.ts';
import { formatLedger } from './summary-message.ts';
import type { FactKind, FactLedger } from './types.ts';

// Issue 19 (16k windows): a summary's ledger is bounded by tokens, so a small window keeps its
// summary instead of having the final fit clip it in the middle.

const counter = counterFor('anthropic:claude');
const countText = (text: string): number => counter.countText(text);
const KINDS: readonly FactKind[] = LEDGER_KEYS;
const ORDER: readonly FactKind[] = [
  'numbers',
  'identifiers',
  'urls',
  'errors',
  'pathsMentioned',
  'filesRead',
  'commands',
  'filesModified',
];

const ledgerArbitrary = fc
  .record(
    Object.fromEntries(
      KINDS.map((kind) => [
        kind,
        fc.uniqueArray(
          fc.oneof(
            fc.stringMatching(/^[a-z]{1,8}(\/[a-z]{1,8}){0,3}\.ts$/),
            fc.string({ minLength: 1, maxLength: 60 }),
            fc.lorem({ maxCount: 12 }),
          ),
          { maxLength: 25 },
        ),
      ]),
    ) as Record<FactKind, fc.Arbitrary<string[]>>,
  )
  .map((lists): FactLedger => ({ ...emptyFactLists(), ...lists }));

describe('fitLedger', () => {
  it('returns the ledger itself when it fits', () => {
    const ledger: FactLedger = { ...emptyFactLists(), commands: ['npm test'], filesModified: ['src/a.ts'] };
    expect(fitLedger(ledger, 1_000, countText)).toBe(ledger);
  });

  it('fits the budget, keeps whole items, the newest of each kind, and cuts kinds in order', () => {
    fc.assert(
      fc.property(ledgerArbitrary, fc.integer({ min: 0, max: 400 }), (ledger, maxTokens) => {
        const fitted = fitLedger(ledger, maxTokens, countText);
        const rendered = formatLedger(fitted);
        const total = KINDS.reduce((sum, kind) => sum + (fitted[kind]?.length ?? 0), 0);
        // Within the budget, or nothing left to cut.
        expect(countText(rendered) <= maxTokens || total === 0).toBe(true);
        let cutSeen = false;
        for (const kind of [...ORDER].reverse()) {
          const before = ledger[kind] ?? [];
          const after = fitted[kind] ?? [];
          // The newest facts stay (lists are oldest first), each item whole.
          expect(after).toEqual(before.slice(before.length - after.length));
          const cut = after.length < before.length;
          // A kind is cut only when every kind that gives way before it is empty.
          if (cutSeen) expect(after.length).toBe(0);
          if (cut) {
            cutSeen = true;
            expect(fitted.leftOut).toContain(kind);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('says which lists are the newest only, keeping what the ledger already said', () => {
    const ledger: FactLedger = {
      ...emptyFactLists(),
      commands: Array.from({ length: 40 }, (_, i) => `npm run step-${i}`),
      numbers: Array.from({ length: 40 }, (_, i) => `${i} tests`),
      leftOut: ['urls'],
    };
    const fitted = fitLedger(ledger, 200, countText);
    expect(fitted.numbers).toEqual([]);
    expect(fitted.commands?.at(-1)).toBe('npm run step-39');
    expect(fitted.leftOut).toEqual(
      ['urls', 'commands', 'numbers'].sort(
        (a, b) => ORDER.indexOf(a as FactKind) - ORDER.indexOf(b as FactKind),
      ),
    );
    expect(formatLedger(fitted)).toContain('Commands run (the newest only; older ones were left out)');
  });
});
