import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkModelEntries, DOCUMENTED_ODD_SIZES, likelyTypoOf } from './check-model-data.ts';
import { bundledModelRegistry, type ModelEntry } from './registry.ts';

const entry = (fields: Partial<ModelEntry> & Pick<ModelEntry, 'id' | 'contextWindow'>): ModelEntry => ({
  provider: 'acme',
  tokenizer: 'chars/4',
  pricing: {},
  ...fields,
});

describe('model data checks (MOD-1)', () => {
  it('the bundled registry has no max output above its window, no typo-like size, no conflicting duplicate', () => {
    expect(checkModelEntries(bundledModelRegistry().entries)).toEqual([]);
  });

  it('reads one wrong digit of a power of two as a typo, and nothing else', () => {
    expect(likelyTypoOf(262_114)).toBe(262_144);
    expect(likelyTypoOf(66_536)).toBe(65_536);
    expect(likelyTypoOf(131_073)).toBe(131_072);
    for (const size of [
      128_000,
      200_000,
      1_000_000,
      262_144,
      163_840,
      131_000,
      1_050_000,
      ...DOCUMENTED_ODD_SIZES,
    ])
      expect(likelyTypoOf(size), String(size)).toBeUndefined();
    fc.assert(
      fc.property(
        fc.integer({ min: 11, max: 22 }),
        fc.nat(),
        fc.integer({ min: 0, max: 9 }),
        (exponent, at, digit) => {
          const power = String(2 ** exponent);
          const index = at % power.length;
          if (power[index] === String(digit) || (index === 0 && digit === 0)) return;
          const typo = Number(power.slice(0, index) + digit + power.slice(index + 1));
          if (!DOCUMENTED_ODD_SIZES.has(typo)) expect(likelyTypoOf(typo)).toBe(2 ** exponent);
        },
      ),
    );
  });

  it('names each problem with the model and the numbers', () => {
    const problems = checkModelEntries([
      entry({ id: 'swapped', contextWindow: 64_000, maxOutputTokens: 128_000 }),
      entry({ id: 'typo', contextWindow: 262_114 }),
      entry({ id: 'twin', contextWindow: 32_768, aliases: ['twin-latest-build'] }),
      entry({ id: 'twin-latest-build', contextWindow: 65_536 }),
      entry({ id: 'twin', provider: 'other', contextWindow: 8192 }),
    ]);
    expect(problems.map(({ kind, model }) => `${kind} ${model}`)).toEqual([
      'max-output-above-window acme/swapped',
      'typo-like-size acme/typo',
      'conflicting-duplicate acme/twin-latest-build',
    ]);
    expect(problems[0]?.message).toBe('acme/swapped: max output 128000 exceeds its window 64000');
    expect(problems[1]?.message).toBe('acme/typo: window 262114 looks like a typo of 262144');
    expect(problems[2]?.message).toMatch(/twin \(32768\/-\), twin-latest-build \(65536\/-\)/);
  });
});
