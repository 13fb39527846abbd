import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  countLines,
  createPasteFilter,
  createPasteStore,
  formatBytes,
  PASTE_END,
  PASTE_START,
} from './bracketed-paste.ts';

/** Feeds `chunks` through a paste filter; returns the keys passed on and the pastes seen. */
async function filter(chunks: readonly (string | Buffer)[]) {
  const pastes: string[] = [];
  const stream = createPasteFilter((text) => pastes.push(text));
  let keys = '';
  stream.on('data', (data: Buffer | string) => {
    keys += data.toString();
  });
  const ended = new Promise((resolve) => stream.on('end', resolve));
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  await ended;
  return { keys, pastes };
}

describe('createPasteFilter', () => {
  it('takes a bracketed paste out of the key stream whole, keys around it pass', async () => {
    expect(await filter([`ab${PASTE_START}line 1\rline 2${PASTE_END}c\r`])).toEqual({
      keys: 'abc\r',
      pastes: ['line 1\rline 2'],
    });
  });

  it('property: however the bytes are split into reads, the same keys and pastes come out', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ typed: fc.string({ maxLength: 8 }), pasted: fc.string({ maxLength: 30 }) }), {
          maxLength: 5,
        }),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (parts, cuts) => {
          // Text with no ESC of its own (typed keys with ESC are arrows etc., kept whole by the terminal).
          const clean = (text: string) => text.replaceAll('\u001b', '');
          const input = parts
            .map(({ typed, pasted }) => `${clean(typed)}${PASTE_START}${clean(pasted)}${PASTE_END}`)
            .join('');
          const bytes = Buffer.from(input, 'utf8');
          const offsets = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks: Buffer[] = [];
          let from = 0;
          for (const offset of [...offsets, bytes.length]) {
            chunks.push(bytes.subarray(from, offset));
            from = offset;
          }
          const result = await filter(chunks);
          expect(result.keys).toBe(parts.map(({ typed }) => clean(typed)).join(''));
          expect(result.pastes).toEqual(parts.map(({ pasted }) => clean(pasted)));
        },
      ),
    );
  });

  it('a megabyte paste in 4 KB reads is one paste', async () => {
    const big = `${'x'.repeat(40)}\r`.repeat(24_387);
    const input = Buffer.from(`${PASTE_START}${big}${PASTE_END}\r`);
    const chunks = Array.from({ length: Math.ceil(input.length / 4096) }, (_, i) =>
      input.subarray(i * 4096, (i + 1) * 4096),
    );
    const result = await filter(chunks);
    expect(result).toEqual({ keys: '\r', pastes: [big] });
  });
});

describe('createPasteStore', () => {
  it('keeps a short one-line paste as typed, collapses the rest, expands them when sent', () => {
    const store = createPasteStore();
    expect(store.add('hello')).toBe('hello');
    const big = `${'y'.repeat(42)}\r\n`.repeat(24_387);
    const placeholder = store.add(big);
    expect(placeholder).toBe('[pasted 1.0 MB, 24,387 lines]');
    expect(store.expand(`summarize this: ${placeholder} please`)).toBe(
      `summarize this: ${big.replaceAll('\r\n', '\n')} please`,
    );
    const other = store.add(`${'z'.repeat(42)}\n`.repeat(24_387));
    expect(other).toBe('[pasted 1.0 MB, 24,387 lines #2]');
    expect(store.add('two\rlines')).toBe('[pasted 9 B, 2 lines]');
    expect(store.expand('[pasted 9 B, 2 lines] and [pasted 7 B, 1 line]')).toBe(
      'two\nlines and [pasted 7 B, 1 line]',
    );
  });

  it('pasted text is literal: $& and placeholders inside a paste are not expanded again', () => {
    const store = createPasteStore();
    const first = store.add('a\n$& [pasted 3 B, 2 lines]');
    expect(store.expand(first)).toBe('a\n$& [pasted 3 B, 2 lines]');
  });

  it('sizes and line counts', () => {
    expect([formatBytes(999), formatBytes(4200), formatBytes(1_048_576)]).toEqual([
      '999 B',
      '4.2 KB',
      '1.0 MB',
    ]);
    expect([countLines(''), countLines('a'), countLines('a\nb'), countLines('a\nb\n')]).toEqual([0, 1, 2, 2]);
  });
});
