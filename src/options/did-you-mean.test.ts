import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closestKey, didYouMean } from './did-you-mean.ts';

const known = [
  'maxMessagesBeforeSummary',
  'maxTokensBeforeSummary',
  'minRecentMessages',
  'responseReserve',
  'target',
];

describe('closestKey', () => {
  it('finds typos, other cases and snake_case spellings', () => {
    expect(closestKey('maxMessagesBeforeSumary', known)).toBe('maxMessagesBeforeSummary');
    expect(closestKey('max_tokens_before_summary', known)).toBe('maxTokensBeforeSummary');
    expect(closestKey('MinRecentMesages', known)).toBe('minRecentMessages');
    expect(closestKey('taregt', known)).toBe('target');
    expect(didYouMean('respnseReserve', known)).toBe(' (did you mean responseReserve?)');
  });

  it('says nothing when no key is close', () => {
    expect(closestKey('temperature', known)).toBeUndefined();
    expect(didYouMean('x', known)).toBe('');
  });

  it('property: any key with one character dropped or doubled is found again', () => {
    fc.assert(
      fc.property(fc.constantFrom(...known), fc.nat(), fc.boolean(), (key, at, drop) => {
        const i = at % key.length;
        const typo = drop ? key.slice(0, i) + key.slice(i + 1) : key.slice(0, i + 1) + key.slice(i);
        expect(closestKey(typo, known)).toBe(key);
      }),
    );
  });
});
