const SLAB_BYTES = 4 * 1024 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Texts kept as UTF-8 in a few large slabs: one byte per ASCII character (a JavaScript string
 * with a single non-Latin-1 character takes two per character) and no object per text, so a
 * million rows are a few hundred buffers, not a million. Texts are only ever added; one that
 * changes is added again under a new handle.
 */
export class ByteArena {
  readonly #slabs: Uint8Array[] = [];
  /** Per handle: its slab, offset and byte length. */
  readonly #slab: number[] = [];
  readonly #offset: number[] = [];
  readonly #length: number[] = [];
  #used = 0;

  /** Adds a text and returns its handle. */
  add(text: string): number {
    // UTF-8 needs at most 3 bytes per UTF-16 unit.
    const last = this.#slabs.at(-1);
    if (last === undefined || last.length - this.#used < text.length * 3) {
      this.#slabs.push(new Uint8Array(Math.max(SLAB_BYTES, text.length * 3)));
      this.#used = 0;
    }
    const slab = this.#slabs.at(-1) as Uint8Array;
    const { written } = encoder.encodeInto(text, slab.subarray(this.#used));
    this.#slab.push(this.#slabs.length - 1);
    this.#offset.push(this.#used);
    this.#length.push(written);
    this.#used += written;
    return this.#length.length - 1;
  }

  /** The text under a handle. */
  get(handle: number): string {
    const slab = this.#slabs[this.#slab[handle] as number] as Uint8Array;
    const offset = this.#offset[handle] as number;
    return decoder.decode(slab.subarray(offset, offset + (this.#length[handle] as number)));
  }
}
