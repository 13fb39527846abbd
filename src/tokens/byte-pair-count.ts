import type { BpeRanks } from './bpe-ranks.ts';

/**
 * Pieces up to this many bytes merge by scanning for the lowest-ranked pair, as the reference
 * tokenizer does (quadratic, fastest for the short words that make up nearly all text); longer
 * ones through a queue of buckets by rank (about linear, TOK-8).
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
 * characters merges in about linear time (TOK-8, issue 19 §3), where the reference's scan
 * takes minutes.
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
    return merge(piece.length, rank, ranks.size, (index) => piece.charCodeAt(index));
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
  return merge(bytes.length, rank, ranks.size, (index) => bytes[index] as number);
}

function merge(length: number, rank: RankOf, size: number, byteAt: (index: number) => number): number {
  if (length < 2) return length;
  if (length <= SCAN_MERGE_MAX_BYTES) return scanMerge(length, rank);
  try {
    return queueMerge(length, rank, size, byteAt);
  } catch (error) {
    // A call that stops midway may leave buckets queued: the next call starts from fresh arrays.
    bucketHeads = new Int32Array(0);
    bucketTails = new Int32Array(0);
    throw error;
  }
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

/** Side-queue entries pack `rank * 2^32 + start`: the smallest is the lowest rank, then the leftmost. */
const START_SPAN = 2 ** 32;

/** A binary min-heap of numbers in a typed array that grows by doubling (ranks, packed side entries). */
class MinHeap {
  private values: Float64Array;
  size = 0;

  constructor(capacity: number) {
    this.values = new Float64Array(capacity);
  }

  /** The smallest value; only when `size > 0`. */
  top(): number {
    return this.values[0] as number;
  }

  push(value: number): void {
    if (this.size === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    const values = this.values;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((values[parent] as number) <= value) break;
      values[i] = values[parent] as number;
      i = parent;
    }
    values[i] = value;
  }

  /** Removes and returns the smallest value; only when `size > 0`. */
  pop(): number {
    const values = this.values;
    const top = values[0] as number;
    const last = values[--this.size] as number;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= this.size) break;
      if (child + 1 < this.size && (values[child + 1] as number) < (values[child] as number)) child++;
      if ((values[child] as number) >= last) break;
      values[i] = values[child] as number;
      i = child;
    }
    values[i] = last;
    return top;
  }
}

/**
 * Queue heads by rank, shared by all calls (grown to the largest encoding): -1 between calls,
 * because every call drains its queue, and an emptied bucket's head is -1 again.
 */
let bucketHeads = new Int32Array(0);
let bucketTails = new Int32Array(0);

/**
 * The same merges as {@link scanMerge} in about linear time (TOK-8, issue 19 §3: a run of a
 * million characters without a break). Parts form a linked list over byte offsets. Candidate
 * pairs wait in one bucket per rank — a list of starts, left to right — and the buckets that
 * hold any in a small heap of their ranks: the next merge is the lowest rank's leftmost start,
 * as the reference picks it. Nearly every pair joins its bucket to the right of the ones there
 * (pairs are found left to right, and a merge adds pairs at its own start and its left
 * neighbour's); one that does not goes to a side heap, and the next merge is the smaller of the
 * two heads. (No text tried, with the shipped encodings or random vocabularies, has needed the
 * side heap; it keeps the order exact without relying on that.) An entry whose pair has since changed is skipped when it comes up: ranks are unique
 * per byte string, so an entry is current exactly when its part still starts there and the pair
 * starting there still has its rank.
 *
 * A pair's rank depends only on the ranks of its two parts (the token is their bytes joined), so
 * it is looked up once per pair of ranks in a small open-addressing table, not by hashing the
 * bytes of every candidate (a run of one letter meets the same few pairs a million times).
 */
function queueMerge(length: number, rank: RankOf, size: number, byteAt: (index: number) => number): number {
  // Per byte offset, four integers side by side (one cache line, not five arrays: a merge
  // touches all of them, at offsets all over a long piece): the start of the following part
  // (length at the end; -1 once the part at this offset merged into the one before), of the
  // preceding part (-1 at the start), the rank of the pair starting here (NONE when none), and
  // of the part starting here (NONE: not a token).
  const parts4 = new Int32Array(4 * length);

  // Pair ranks by the ranks of the two parts (NONE cached too); -1 keys mark empty slots.
  let slots = 1 << 10;
  let used = 0;
  let lefts = new Int32Array(slots).fill(-1);
  let rights = new Int32Array(slots);
  let values = new Int32Array(slots);
  const slotOf = (left: number, right: number, mask: number): number =>
    (Math.imul(left, 0x9e3779b1) ^ Math.imul(right, 0x85ebca6b)) & mask;
  const grow = (): void => {
    const [oldLefts, oldRights, oldValues] = [lefts, rights, values];
    slots *= 2;
    lefts = new Int32Array(slots).fill(-1);
    rights = new Int32Array(slots);
    values = new Int32Array(slots);
    for (let i = 0; i < oldLefts.length; i++) {
      const left = oldLefts[i] as number;
      if (left === -1) continue;
      const right = oldRights[i] as number;
      let slot = slotOf(left, right, slots - 1);
      while (lefts[slot] !== -1) slot = (slot + 1) & (slots - 1);
      lefts[slot] = left;
      rights[slot] = right;
      values[slot] = oldValues[i] as number;
    }
  };
  /** The rank of the pair starting at part `start`, NONE when it is no token or the last part. */
  const pairAt = (start: number): number => {
    const second = parts4[4 * start] as number;
    if (second >= length) return NONE;
    const left = parts4[4 * start + 3] as number;
    const right = parts4[4 * second + 3] as number;
    if (left === NONE || right === NONE) return rank(start, parts4[4 * second] as number);
    const mask = slots - 1;
    let slot = slotOf(left, right, mask);
    for (;;) {
      const key = lefts[slot] as number;
      if (key === -1) break;
      if (key === left && rights[slot] === right) return values[slot] as number;
      slot = (slot + 1) & mask;
    }
    const value = rank(start, parts4[4 * second] as number);
    lefts[slot] = left;
    rights[slot] = right;
    values[slot] = value;
    if (++used * 2 > slots) grow();
    return value;
  };

  // Buckets: entries are starts in a pool (a pair is queued at most once per pair found: at
  // most length - 1 at first and two per merge).
  if (bucketHeads.length < size) {
    bucketHeads = new Int32Array(size).fill(-1);
    bucketTails = new Int32Array(size);
  }
  const heads = bucketHeads;
  const tails = bucketTails;
  // Entry e: its start at 2e, the next entry of its bucket at 2e + 1 (-1 at the tail).
  const entryPool = new Int32Array(6 * length);
  let entries = 0;
  // Ranks of the non-empty buckets, a binary min-heap.
  const rankHeap = new MinHeap(64);
  // Entries queued left of their bucket's tail, packed as START_SPAN says.
  const side = new MinHeap(16);
  const enqueue = (value: number, start: number): void => {
    const head = heads[value] as number;
    if (head !== -1 && start < (entryPool[2 * (tails[value] as number)] as number)) {
      side.push(value * START_SPAN + start);
      return;
    }
    const entry = entries++;
    entryPool[2 * entry] = start;
    entryPool[2 * entry + 1] = -1;
    if (head === -1) {
      heads[value] = entry;
      rankHeap.push(value);
    } else entryPool[2 * (tails[value] as number) + 1] = entry;
    tails[value] = entry;
  };
  /** Recomputes the pair starting at part `start` (with the part after it) and queues it. */
  const update = (start: number): void => {
    const value = pairAt(start);
    parts4[4 * start + 2] = value;
    if (value !== NONE) enqueue(value, start);
  };

  // Single bytes by value: every byte-level encoding has all 256, but NONE is handled anyway.
  const byteRanks = new Int32Array(256).fill(-2);
  for (let i = 0; i < length; i++) {
    parts4[4 * i] = i + 1;
    parts4[4 * i + 1] = i - 1;
    parts4[4 * i + 2] = NONE;
    const byte = byteAt(i);
    let value = byteRanks[byte] as number;
    if (value === -2) {
      value = rank(i, i + 1);
      byteRanks[byte] = value;
    }
    parts4[4 * i + 3] = value;
  }
  for (let i = 0; i + 1 < length; i++) update(i);
  let parts = length;
  for (;;) {
    let value: number;
    let start: number;
    if (rankHeap.size > 0) {
      value = rankHeap.top();
      const head = heads[value] as number;
      start = entryPool[2 * head] as number;
      if (side.size > 0 && side.top() < value * START_SPAN + start) {
        const top = side.pop();
        start = top % START_SPAN;
        value = (top - start) / START_SPAN;
      } else {
        const following = entryPool[2 * head + 1] as number;
        heads[value] = following;
        if (following === -1) rankHeap.pop();
      }
    } else if (side.size > 0) {
      const top = side.pop();
      start = top % START_SPAN;
      value = (top - start) / START_SPAN;
    } else break;
    if (parts4[4 * start] === -1 || parts4[4 * start + 2] !== value) continue;
    const gone = parts4[4 * start] as number;
    const after = parts4[4 * gone] as number;
    parts4[4 * gone] = -1;
    parts4[4 * start] = after;
    if (after < length) parts4[4 * after + 1] = start;
    parts4[4 * start + 3] = value;
    parts--;
    update(start);
    const before = parts4[4 * start + 1] as number;
    if (before >= 0) update(before);
  }
  return parts;
}
