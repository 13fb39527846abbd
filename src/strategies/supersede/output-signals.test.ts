import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasTruncationNotice, TRUNCATION_NOTICES } from './output-signals.ts';

const FRAGMENTS = [
  '[ 1,234 characters truncated ]',
  '[12 more lines truncated]',
  '[Output truncated',
  '[output TRUNCATED',
  '(42 more lines below)',
  '(1 more line above)',
  '(42 MORE LINES BELOW)',
  'Results are truncated',
  'There are more than 1,000 files',
  'too large to display entirely',
  'abbreviated version of the file',
  '<response clipped>',
  '<RESPONSE CLIPPED>',
  '[… chatfold clipped 2,000 of',
  '[… CHATFOLD CLIPPED 2,000 of',
  'ordinary output line',
  '\n',
  ' ',
  'truncated',
  '[',
  ']',
  '42',
];

describe('hasTruncationNotice', () => {
  it('property: the combined patterns match exactly where one of the listed notices does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 8 })), { maxLength: 12 }),
        (pieces) => {
          const text = pieces.join('');
          expect(hasTruncationNotice(text)).toBe(TRUNCATION_NOTICES.some((notice) => notice.test(text)));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('keeps case sensitivity where the notice has it', () => {
    expect(hasTruncationNotice('(3 more lines below)')).toBe(true);
    expect(hasTruncationNotice('(3 MORE LINES BELOW)')).toBe(false);
    expect(hasTruncationNotice('[OUTPUT TRUNCATED at 30000 chars]')).toBe(true);
  });
});
