import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteArena } from './byte-arena.ts';

describe('ByteArena', () => {
  it('gives back every text added, across slabs and for texts larger than a slab', () => {
    const arena = new ByteArena();
    const texts = [
      '',
      'ascii',
      'caf\u00e9 \u2192 \u{1F600}',
      'x'.repeat(5 * 1024 * 1024),
      ...Array.from({ length: 2000 }, (_, i) => `${i} ${'\u00e9'.repeat(i)}`),
      '\u2192'.repeat(2 * 1024 * 1024),
    ];
    const handles = texts.map((text) => arena.add(text));
    handles.forEach((handle, i) => {
      expect(arena.get(handle)).toBe(texts[i]);
    });
  });

  it('round-trips any well-formed text (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 50 }), (texts) => {
        const arena = new ByteArena();
        const handles = texts.map((text) => arena.add(text));
        expect(handles.map((handle) => arena.get(handle))).toEqual(texts);
      }),
    );
  });
});
