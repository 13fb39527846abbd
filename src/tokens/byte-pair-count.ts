import type { BpeRanks } from './bpe-ranks.ts';

/**
 * Pieces up to this many bytes merge by scanning for the lowest-ranked pair, as the reference
 * tokenizer does (quadratic, fastest for the short words that make up nearly all text); longer
 * ones through a heap (n log n, TOK-8).
 */
export const SCAN_MERGE_MAX_BYTES = 64;

const utf8 = new TextEncoder();
/** No pair / no token. */
const NONE = -1;

/** `rank(start, end)`: the rank of the token made of bytes `[start, end)`, or {@link NONE}. */
type RankOf = (start: number, end: number) => number;

/**
 * The number of tokens byte-pair encoding makes of one pre-token that is not itself a token
 * (TOK-2): repeatedly merge the adjacent pair with the lowest rank, the leftmost on a tie, as
 * OpenAI's tiktoken does. Counts are exact for any length: a pre-token of a million repeated
 * characters merges in O(n log n) (TOK-8), where the reference's scan takes minutes.
 *
 * @param piece - A well-formed pre-token (no lone surrogates).
 * @param ranks - The encoding.
 * @returns Its token count.
 */
export function countBytePairs(piece: string, ranks: BpeRanks): number {
  let ascii = true;
  for (let i = 0; i < piece.length && ascii; i++) ascii = piece.charCodeAt(i) < 0x80;
  const { maxTokenBytes } = ranks;
  if (ascii) {
    // Bytes are characters: a byte range is the same range of the string.
    const rank: RankOf = (start, end) =>
      end - start > maxTokenBytes ? NONE : ranks.rankOf(piece, start, end);
    return merge(piece.length, rank);
  }
  const bytes = utf8.encode(piece);
  // UTF-16 offset of each byte offset that starts a character (or the end), else -1: a range
  // between two such offsets is valid UTF-8, so its token (if any) is keyed by its text.
  const unitAt = new Int32Array(bytes.length + 1).fill(-1);
  for (let unit = 0, byte = 0; unit <= piece.length; ) {
    unitAt[byte] = unit;
    if (unit === piece.length) break;
    const code = piece.codePointAt(unit) as number;
    byte += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    unit += code < 0x10000 ? 1 : 2;
  }
  const rank: RankOf = (start, end) => {
    if (end - start > maxTokenBytes) return NONE;
    const from = unitAt[start] as number;
    const to = unitAt[end] as number;
    if (from >= 0 && to >= 0) return ranks.rankOf(piece, from, to);
    let key = '';
    for (let i = start; i < end; i++) key += String.fromCharCode(bytes[i] as number);
    return ranks.rankOfBytes(key);
  };
  return merge(bytes.length, rank);
}

function merge(length: number, rank: RankOf): number {
  if (length < 2) return length;
  return length <= SCAN_MERGE_MAX_BYTES ? scanMerge(length, rank) : heapMerge(length, rank);
}

/** The reference algorithm: find the lowest pair, merge, recompute its two neighbours. */
function scanMerge(length: number, rank: RankOf): number {
  // starts[i] is where part i begins; starts[parts] === length.
  const starts: number[] = [];
  const pairs: number[] = [];
  for (let i = 0; i <= length; i++) starts.push(i);
  for (let i = 0; i + 1 < length; i++) pairs.push(rank(i, i + 2));
  for (;;) {
    let best = NONE;
    let at = -1;
    for (let i = 0; i < pairs.length; i++) {
      const value = pairs[i] as number;
      if (value !== NONE && (best === NONE || value < best)) {
        best = value;
        at = i;
      }
    }
    if (at === -1) break;
    starts.splice(at + 1, 1);
    pairs.splice(at, 1);
    if (at < pairs.length) pairs[at] = rank(starts[at] as number, starts[at + 2] as number);
    if (at > 0) pairs[at - 1] = rank(starts[at - 1] as number, starts[at + 1] as number);
  }
  return starts.length - 1;
}

/** Heap entries pack `rank * 2^32 + start`: the smallest is the lowest rank, then the leftmost. */
const START_SPAN = 2 ** 32;

/**
 * The same merges in O(n log n): parts form a linked list over byte offsets, candidate pairs sit
 * in a binary heap, and an entry whose pair has since changed is skipped when popped. Ranks are
 * unique per byte string, so an entry is current exactly when its part still starts there and
 * the pair starting there still has its rank.
 */
function heapMerge(length: number, rank: RankOf): number {
  const next = new Int32Array(length); // start of the following part (length at the end)
  const prev = new Int32Array(length); // start of the preceding part (-1 at the start)
  const pairRank = new Int32Array(length).fill(NONE); // rank of the pair starting here
  const isStart = new Uint8Array(length).fill(1);
  let heap = new Float64Array(Math.max(16, length));
  let size = 0;
  const push = (value: number): void => {
    if (size === heap.length) {
      const grown = new Float64Array(heap.length * 2);
      grown.set(heap);
      heap = grown;
    }
    let i = size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((heap[parent] as number) <= value) break;
      heap[i] = heap[parent] as number;
      i = parent;
    }
    heap[i] = value;
  };
  const pop = (): number => {
    const top = heap[0] as number;
    const last = heap[--size] as number;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && (heap[child + 1] as number) < (heap[child] as number)) child++;
      if ((heap[child] as number) >= last) break;
      heap[i] = heap[child] as number;
      i = child;
    }
    heap[i] = last;
    return top;
  };
  /** Recomputes the pair starting at part `start` (with the part after it) and queues it. */
  const update = (start: number): void => {
    const second = next[start] as number;
    const value = second >= length ? NONE : rank(start, next[second] as number);
    pairRank[start] = value;
    if (value !== NONE) push(value * START_SPAN + start);
  };
  for (let i = 0; i < length; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
  }
  for (let i = 0; i + 1 < length; i++) update(i);
  let parts = length;
  while (size > 0) {
    const entry = pop();
    const start = entry % START_SPAN;
    const value = (entry - start) / START_SPAN;
    if (isStart[start] === 0 || pairRank[start] !== value) continue;
    const gone = next[start] as number;
    isStart[gone] = 0;
    const after = next[gone] as number;
    next[start] = after;
    if (after < length) prev[after] = start;
    parts--;
    update(start);
    const before = prev[start] as number;
    if (before >= 0) update(before);
  }
  return parts;
}
