import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { titleFromText } from './turns.ts';

describe('titleFromText', () => {
  it('drops markdown marks, code fences and link targets', () => {
    expect(titleFromText('How do I fold a **long** `history`?')).toBe('How do I fold a long history?');
    expect(titleFromText('```ts\nconst a = 1;\n```')).toBe('const a = 1;');
    expect(titleFromText('# Plan\n- read [the docs](https://example.com)')).toBe('Plan read the docs');
    expect(titleFromText('``` ```')).toBe('New chat');
  });

  it('is one line of at most 60 characters, never empty, for any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 500 }), (text) => {
        const title = titleFromText(text);
        expect(title.length).toBeGreaterThan(0);
        expect(title.length).toBeLessThanOrEqual(60);
        expect(title).not.toMatch(/[\n`]/);
      }),
    );
  });
});
