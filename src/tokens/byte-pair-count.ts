import type { BpeRanks } from './bpe-ranks.ts';

/**
 * Pieces up to this many bytes merge by scanning for the lowest-ranked pair, as the reference
 * tokenizer does (quadratic, fastest for the short words that make up nearly all text); longer
 * ones through a queue of buckets by rank (about linear, TOK-8), and those over
 * {@link MERGE_WINDOWS}' `fromBytes` a window at a time (issue 19).
 */
export const SCAN_MERGE_MAX_BYTES = 64;

const utf8 = new TextEncoder();
/** No pair / no token. */
const NONE = -1;

/** A pre-token's bytes, and the rank of the token made of any range of them. */
interface PieceBytes {
  /** How many bytes. */
  readonly length: number;
  /** Whether lookups go through {@link BpeRanks.rankOfMostlyAbsent}: absent tokens are cheap. */
  readonly mostlyAbsent: boolean;
  /** The rank of the token made of bytes `[start, end)`, or {@link NONE}. */
  rank(start: number, end: number): number;
  /** The byte at `index`. */
  byteAt(index: number): number;
}

/**
 * How pieces of many bytes merge a window at a time (see {@link windowMerge}); the defaults are
 * {@link MERGE_WINDOWS}. Any values give the same counts: tests use tiny windows to reach the
 * rare paths.
 */
export interface MergeWindows {
  /** Pieces of more bytes than this merge window by window; shorter ones in one queue. */
  readonly fromBytes: number;
  /** Bytes merged together per window. */
  readonly windowBytes: number;
  /** A window's tokens are kept up to the last one starting this many bytes before its end. */
  readonly marginBytes: number;
  /** When given, counts what happened (tests): windows merged, back-offs, whole-piece merges. */
  readonly stats?: { windows: number; backoffs: number; wholePieces: number };
}

/**
 * Windows of 8 KiB: their per-byte arrays (40 bytes a byte) stay in the processor's cache; a
 * million bytes in one queue missed it on nearly every merge (issue 19). The margin is far
 * longer than BPE's reach in real text, so a kept boundary is nearly always one of the whole
 * piece's (a window that starts elsewhere only costs a back-off, never a wrong count).
 */
export const MERGE_WINDOWS: MergeWindows = Object.freeze({
  fromBytes: 16_384,
  windowBytes: 8192,
  marginBytes: 256,
});

/**
 * The number of tokens byte-pair encoding makes of one pre-token that is not itself a token
 * (TOK-2): repeatedly merge the adjacent pair with the lowest rank, the leftmost on a tie, as
 * OpenAI's tiktoken does. Counts are exact for any length: a pre-token of a million repeated
 * characters merges in about linear time (TOK-8, issue 19 §3), where the reference's scan
 * takes minutes.
 *
 * @param piece - A well-formed pre-token (no lone surrogates).
 * @param ranks - The encoding.
 * @param windows - How long pieces are cut into windows (tests; the count is the same).
 * @returns Its token count.
 */
export function countBytePairs(piece: string, ranks: BpeRanks, windows = MERGE_WINDOWS): number {
  let ascii = true;
  for (let i = 0; i < piece.length && ascii; i++) ascii = piece.charCodeAt(i) < 0x80;
  // Pieces merged by windows look up mostly pairs that are no token: through the filter.
  const bytes = ascii
    ? new AsciiBytes(piece, ranks, windows.fromBytes)
    : new Utf8Bytes(piece, ranks, windows.fromBytes);
  return merge(bytes.length, bytes, ranks.size, windows);
}

/*
 * The two kinds of piece are classes, not closures made per call: their methods keep one call
 * target, so the compiler inlines them into the merge loops (a fresh closure per call
 * deoptimized the loop at each long piece).
 */

/** An ASCII piece: bytes are characters, a byte range is the same range of the string. */
class AsciiBytes implements PieceBytes {
  private readonly piece: string;
  private readonly ranks: BpeRanks;
  private readonly maxTokenBytes: number;
  readonly mostlyAbsent: boolean;
  readonly length: number;

  /** `absentAbove`: pieces of more bytes look tokens up through the filter. */
  constructor(piece: string, ranks: BpeRanks, absentAbove: number) {
    this.piece = piece;
    this.ranks = ranks;
    this.maxTokenBytes = ranks.maxTokenBytes;
    this.length = piece.length;
    this.mostlyAbsent = piece.length > absentAbove;
  }

  rank(start: number, end: number): number {
    if (end - start > this.maxTokenBytes) return NONE;
    return this.mostlyAbsent
      ? this.ranks.rankOfMostlyAbsent(this.piece, start, end)
      : this.ranks.rankOf(this.piece, start, end);
  }

  byteAt(index: number): number {
    return this.piece.charCodeAt(index);
  }
}

/** Any other piece, as UTF-8. */
class Utf8Bytes implements PieceBytes {
  readonly length: number;
  private readonly piece: string;
  private readonly ranks: BpeRanks;
  private readonly maxTokenBytes: number;
  private readonly bytes: Uint8Array;
  /**
   * UTF-16 offset of each byte offset that starts a character (or the end), else -1: a range
   * between two such offsets is valid UTF-8, so its token (if any) is keyed by its text.
   */
  private readonly unitAt: Int32Array;
  readonly mostlyAbsent: boolean;

  /** `absentAbove`: pieces of more bytes look tokens up through the filter. */
  constructor(piece: string, ranks: BpeRanks, absentAbove: number) {
    this.piece = piece;
    this.ranks = ranks;
    this.maxTokenBytes = ranks.maxTokenBytes;
    const bytes = utf8.encode(piece);
    this.bytes = bytes;
    this.length = bytes.length;
    this.mostlyAbsent = bytes.length > absentAbove;
    const unitAt = new Int32Array(bytes.length + 1).fill(-1);
    for (let unit = 0, byte = 0; unit <= piece.length; ) {
      unitAt[byte] = unit;
      if (unit === piece.length) break;
      const code = piece.codePointAt(unit) as number;
      byte += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
      unit += code < 0x10000 ? 1 : 2;
    }
    this.unitAt = unitAt;
  }

  rank(start: number, end: number): number {
    if (end - start > this.maxTokenBytes) return NONE;
    const from = this.unitAt[start] as number;
    const to = this.unitAt[end] as number;
    if (from >= 0 && to >= 0)
      return this.mostlyAbsent
        ? this.ranks.rankOfMostlyAbsent(this.piece, from, to)
        : this.ranks.rankOf(this.piece, from, to);
    let key = '';
    for (let i = start; i < end; i++) key += String.fromCharCode(this.bytes[i] as number);
    return this.ranks.rankOfBytes(key);
  }

  byteAt(index: number): number {
    return this.bytes[index] as number;
  }
}

function merge(length: number, bytes: PieceBytes, size: number, windows: MergeWindows): number {
  if (length < 2) return length;
  if (length <= SCAN_MERGE_MAX_BYTES) return scanMerge(length, bytes);
  try {
    if (length <= windows.fromBytes) return new RangeMerger(length, bytes, size).merge(0, length);
    return windowMerge(length, bytes, size, windows);
  } catch (error) {
    // A call that stops midway may leave buckets queued: the next call starts from fresh arrays.
    bucketHeads = new Int32Array(0);
    bucketTails = new Int32Array(0);
    throw error;
  }
}

/** The reference algorithm over a whole piece (see {@link referenceMerge}). */
function scanMerge(length: number, bytes: PieceBytes): number {
  return referenceMerge(0, length, bytes);
}

/**
 * Whether bytes `[start, end)` merge as two tokens split at `middle` (a pair of tokens BPE keeps
 * apart): the reference merge over them, stopped at the first merge across `middle`.
 */
function splitHolds(start: number, middle: number, end: number, bytes: PieceBytes): boolean {
  return referenceMerge(start, end, bytes, middle) !== NONE;
}

/**
 * The reference algorithm on bytes `[start, end)`: find the lowest pair, merge, recompute its
 * two neighbours. Returns the number of tokens, or {@link NONE} as soon as a merge would join
 * the parts either side of `keepApart` (when given).
 */
function referenceMerge(start: number, end: number, bytes: PieceBytes, keepApart = NONE): number {
  // starts[i] is where part i begins; the last entry is `end`.
  const starts: number[] = [];
  const pairs: number[] = [];
  for (let i = start; i <= end; i++) starts.push(i);
  for (let i = start; i + 1 < end; i++) pairs.push(bytes.rank(i, i + 2));
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
    if (at === -1) return starts.length - 1;
    if (starts[at + 1] === keepApart) return NONE;
    starts.splice(at + 1, 1);
    pairs.splice(at, 1);
    if (at < pairs.length) pairs[at] = bytes.rank(starts[at] as number, starts[at + 2] as number);
    if (at > 0) pairs[at - 1] = bytes.rank(starts[at - 1] as number, starts[at + 1] as number);
  }
}

/** Slots of {@link RangeMerger}'s cache of pairs that are no token (128 KiB). */
const ABSENT_PAIRS = 1 << 14;
/** Pairs in the pair-rank table after which pairs that are no token go to that cache. */
const TABLE_ABSENT_PAIRS = 1 << 13;

/** Side-queue entries pack `rank * 2^32 + start`: the smallest is the lowest rank, then the leftmost. */
const START_SPAN = 2 ** 32;

/** A binary min-heap of numbers in a typed array that grows by doubling (the packed side entries). */
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

/** Where the lowest set bit of a nonzero 32-bit word is. */
const lowestBit = (word: number): number => 31 - Math.clz32(word & -word);

/**
 * A set of ranks that finds its smallest in a few word operations: a bit per rank, a bit per
 * nonzero word of those, and one per nonzero word of these (o200k_base: 6,250, 196 and 7
 * words). The merge queue's ranks with pairs waiting: a binary heap of them took a third of the
 * time on a million random letters, where nearly every new pair has a rank of its own.
 */
class RankSet {
  private readonly bits: Int32Array;
  private readonly words: Int32Array;
  private readonly groups: Int32Array;
  /** The smallest rank, -1 when the set is empty, -2 when it must be searched for. */
  private lowest = -1;

  constructor(size: number) {
    this.bits = new Int32Array(Math.ceil(size / 32));
    this.words = new Int32Array(Math.ceil(this.bits.length / 32));
    this.groups = new Int32Array(Math.ceil(this.words.length / 32));
  }

  add(rank: number): void {
    if (this.lowest === -1 || (this.lowest >= 0 && rank < this.lowest)) this.lowest = rank;
    const word = rank >>> 5;
    const before = this.bits[word] as number;
    this.bits[word] = before | (1 << (rank & 31));
    if (before !== 0) return;
    const group = word >>> 5;
    const wordsBefore = this.words[group] as number;
    this.words[group] = wordsBefore | (1 << (word & 31));
    if (wordsBefore === 0)
      this.groups[group >>> 5] = (this.groups[group >>> 5] as number) | (1 << (group & 31));
  }

  delete(rank: number): void {
    if (rank === this.lowest) this.lowest = -2;
    const word = rank >>> 5;
    const after = (this.bits[word] as number) & ~(1 << (rank & 31));
    this.bits[word] = after;
    if (after !== 0) return;
    const group = word >>> 5;
    const wordsAfter = (this.words[group] as number) & ~(1 << (word & 31));
    this.words[group] = wordsAfter;
    if (wordsAfter === 0)
      this.groups[group >>> 5] = (this.groups[group >>> 5] as number) & ~(1 << (group & 31));
  }

  /** The smallest rank in the set, or -1 when it is empty. */
  min(): number {
    if (this.lowest !== -2) return this.lowest;
    const groups = this.groups;
    for (let i = 0; i < groups.length; i++) {
      const bits = groups[i] as number;
      if (bits === 0) continue;
      const group = (i << 5) + lowestBit(bits);
      const word = (group << 5) + lowestBit(this.words[group] as number);
      this.lowest = (word << 5) + lowestBit(this.bits[word] as number);
      return this.lowest;
    }
    this.lowest = -1;
    return -1;
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
 * million characters without a break), over any range of the piece up to `capacity` bytes; the
 * arrays and the pair-rank table are made once and serve every range merged (the windows of
 * {@link windowMerge}). Parts form a linked list over byte offsets. Candidate pairs wait in one
 * bucket per rank — a list of starts, left to right — and the ranks of the buckets that hold any
 * in a {@link RankSet}: the next merge is the lowest rank's leftmost start, as the reference
 * picks it. Nearly every pair joins its bucket to the right of the ones there (pairs are found
 * left to right, and a merge adds pairs at its own start and its left neighbour's); one that
 * does not goes to a side heap, and the next merge is the smaller of the two heads. (No text
 * tried, with the shipped encodings or random vocabularies, has needed the side heap; it keeps
 * the order exact without relying on that.) An entry whose pair has since changed is skipped
 * when it comes up: ranks are unique per byte string, so an entry is current exactly when its
 * part still starts there and the pair starting there still has its rank.
 *
 * A pair's rank depends only on the ranks of its two parts (the token is their bytes joined), so
 * it is looked up once per pair of ranks in a small open-addressing table, not by hashing the
 * bytes of every candidate (a run of one letter meets the same few pairs a million times).
 *
 * A class, not closures made per range: methods keep one call target, so the compiler inlines
 * them into every window's loop (closures made per window deoptimized it at each new window).
 */
class RangeMerger {
  /**
   * Per byte offset from the range's start, four integers side by side (one cache line, not
   * five arrays: a merge touches all of them): the start of the following part (the range's
   * length at the end; -1 once the part at this offset merged into the one before), of the
   * preceding part (-1 at the start), the rank of the pair starting here (NONE when none), and
   * of the part starting here (NONE: not a token). Read by {@link windowMerge} after a merge.
   */
  readonly parts4: Int32Array;
  /**
   * Entry e: its start at 2e, the next entry of its bucket at 2e + 1 (-1 at the tail). A pair is
   * queued at most once per pair found: at most length - 1 at first and two per merge.
   */
  private readonly entryPool: Int32Array;
  private entries = 0;
  /** Ranks of the non-empty buckets (none between ranges: every merge drains its queue). */
  private readonly waiting: RankSet;
  /** Entries queued left of their bucket's tail, packed as START_SPAN says. */
  private readonly side = new MinHeap(16);
  /** Single bytes by value (-2: not looked up): every byte-level encoding has all 256. */
  private readonly byteRanks = new Int32Array(256).fill(-2);
  /**
   * Pair ranks by the ranks of the two parts (NONE cached too), open addressing: slot i holds
   * the left rank at 4i (-1: empty), the right one at 4i + 1, the pair's rank at 4i + 2, in one
   * cache line (a million random letters meet 300,000 pairs: a table of many megabytes).
   */
  private table = new Int32Array(4 << 10).fill(-1);
  /**
   * When absent tokens are cheap to look up (see {@link PieceBytes.mostlyAbsent}), pairs that are
   * no token stay out of the table once it holds {@link TABLE_ABSENT_PAIRS}: slot i holds the
   * left rank at 2i, the right one at 2i + 1 of the last such pair met there. A million random
   * letters meet 300,000 pairs, nearly all no token and met once: in the table they grew it to
   * 16 MB, a cache miss a lookup. Base64 meets 10,000 pairs again and again: the table holds
   * them.
   */
  private readonly absent: Int32Array | undefined;
  private slots = 1 << 10;
  private used = 0;
  /** The range being merged: its first byte in the piece and its length. */
  private from = 0;
  private length = 0;

  private readonly bytes: PieceBytes;

  constructor(capacity: number, bytes: PieceBytes, size: number) {
    this.bytes = bytes;
    this.absent = bytes.mostlyAbsent ? new Int32Array(2 * ABSENT_PAIRS).fill(-1) : undefined;
    this.parts4 = new Int32Array(4 * capacity);
    this.entryPool = new Int32Array(6 * capacity);
    this.waiting = new RankSet(size);
    if (bucketHeads.length < size) {
      bucketHeads = new Int32Array(size).fill(-1);
      bucketTails = new Int32Array(size);
    }
  }

  /**
   * Merges bytes `[from, to)` of the piece as one piece (at most the capacity), leaving its
   * parts in {@link parts4} at offsets from `from`.
   *
   * @returns The number of tokens.
   */
  merge(from: number, to: number): number {
    const length = to - from;
    this.from = from;
    this.length = length;
    this.entries = 0;
    const { parts4, entryPool, waiting, side, byteRanks } = this;
    const heads = bucketHeads;
    for (let i = 0; i < length; i++) {
      parts4[4 * i] = i + 1;
      parts4[4 * i + 1] = i - 1;
      parts4[4 * i + 2] = NONE;
      const byte = this.bytes.byteAt(from + i);
      let value = byteRanks[byte] as number;
      if (value === -2) {
        value = this.bytes.rank(from + i, from + i + 1);
        byteRanks[byte] = value;
      }
      parts4[4 * i + 3] = value;
    }
    for (let i = 0; i + 1 < length; i++) this.update(i);
    let parts = length;
    for (;;) {
      let value: number;
      let start: number;
      const lowest = waiting.min();
      if (lowest !== -1) {
        value = lowest;
        const head = heads[value] as number;
        start = entryPool[2 * head] as number;
        if (side.size > 0 && side.top() < value * START_SPAN + start) {
          const top = side.pop();
          start = top % START_SPAN;
          value = (top - start) / START_SPAN;
        } else {
          const following = entryPool[2 * head + 1] as number;
          heads[value] = following;
          if (following === -1) waiting.delete(value);
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
      this.update(start);
      const before = parts4[4 * start + 1] as number;
      if (before >= 0) this.update(before);
    }
    return parts;
  }

  /** Recomputes the pair starting at part `start` (with the part after it) and queues it. */
  private update(start: number): void {
    const value = this.pairAt(start);
    this.parts4[4 * start + 2] = value;
    if (value !== NONE) this.enqueue(value, start);
  }

  /** The rank of the pair starting at part `start`, NONE when it is no token or the last part. */
  private pairAt(start: number): number {
    const parts4 = this.parts4;
    const second = parts4[4 * start] as number;
    if (second >= this.length) return NONE;
    const left = parts4[4 * start + 3] as number;
    const right = parts4[4 * second + 3] as number;
    const end = this.from + (parts4[4 * second] as number);
    if (left === NONE || right === NONE) return this.bytes.rank(this.from + start, end);
    const table = this.table;
    const hash = slotOf(left, right, -1);
    const mask = this.slots - 1;
    let slot = hash & mask;
    for (;;) {
      const key = table[4 * slot] as number;
      if (key === -1) break;
      if (key === left && table[4 * slot + 1] === right) return table[4 * slot + 2] as number;
      slot = (slot + 1) & mask;
    }
    const absent = this.absent;
    const near = 2 * (hash & (ABSENT_PAIRS - 1));
    if (absent !== undefined && absent[near] === left && absent[near + 1] === right) return NONE;
    const value = this.bytes.rank(this.from + start, end);
    if (value === NONE && absent !== undefined && this.used >= TABLE_ABSENT_PAIRS) {
      absent[near] = left;
      absent[near + 1] = right;
      return NONE;
    }
    table[4 * slot] = left;
    table[4 * slot + 1] = right;
    table[4 * slot + 2] = value;
    if (++this.used * 2 > this.slots) this.grow();
    return value;
  }

  private grow(): void {
    const old = this.table;
    this.slots *= 2;
    const mask = this.slots - 1;
    const table = new Int32Array(4 * this.slots).fill(-1);
    for (let i = 0; i < old.length; i += 4) {
      const left = old[i] as number;
      if (left === -1) continue;
      const right = old[i + 1] as number;
      let slot = slotOf(left, right, mask);
      while (table[4 * slot] !== -1) slot = (slot + 1) & mask;
      table[4 * slot] = left;
      table[4 * slot + 1] = right;
      table[4 * slot + 2] = old[i + 2] as number;
    }
    this.table = table;
  }

  private enqueue(value: number, start: number): void {
    const heads = bucketHeads;
    const tails = bucketTails;
    const entryPool = this.entryPool;
    const head = heads[value] as number;
    if (head !== -1 && start < (entryPool[2 * (tails[value] as number)] as number)) {
      this.side.push(value * START_SPAN + start);
      return;
    }
    const entry = this.entries++;
    entryPool[2 * entry] = start;
    entryPool[2 * entry + 1] = -1;
    if (head === -1) {
      heads[value] = entry;
      this.waiting.add(value);
    } else entryPool[2 * (tails[value] as number) + 1] = entry;
    tails[value] = entry;
  }
}

/** Where a pair of part ranks sits in a pair-rank table of `mask + 1` slots. */
const slotOf = (left: number, right: number, mask: number): number =>
  (Math.imul(left, 0x9e3779b1) ^ Math.imul(right, 0x85ebca6b)) & mask;

/**
 * The merges of a long piece a window at a time (issue 19: a million random letters took 5–6×
 * the time of prose in one queue, its merges all over a 40 MB working set). Exact, for any
 * vocabulary, by two facts about BPE as the reference runs it (`A`, `B` byte strings, `AB`
 * joined, `enc` the merge of one string alone):
 *
 * 1. `enc(AB)` has a token boundary where `A` ends exactly when `enc(AB) = enc(A) enc(B)`: a
 *    run that never merges across that point makes the merges of `A` and of `B` alone,
 *    interleaved (each side's next merge is the lowest pair on its side). So the tokens of
 *    `enc(W)` up to any of its boundaries are `enc` of the bytes up there.
 * 2. With `a` the last token of `enc(A)` and `b` the first of `enc(B)`: when `enc(ab)` keeps them
 *    apart, `enc(AB) = enc(A) enc(B)`. (In the run over `AB`, the bytes of `a` and of `b` pass
 *    through the same parts, in the same order, as in the run over `ab`; a merge across the
 *    point would be the lowest pair at some moment of that run, where the pairs of `a` and `b`
 *    compete with no more than they do in `AB`, so it would merge in `ab` too.)
 *
 * So: merge a window of bytes after the point `p` reached so far, check the pair across `p`
 * ({@link splitHolds}: a few bytes), keep the window's tokens up to its last boundary at least
 * `marginBytes` before the window's end, and go on from there. A failed check (the kept
 * boundary was none of the whole piece's, or the window's end changed its first token) backs
 * off to the previous kept boundary of the last window; with none left, or after too many
 * back-offs, the whole piece merges in one queue as before. In the texts measured (random
 * letters, base64, runs of one character) no check failed.
 */
function windowMerge(
  length: number,
  bytes: PieceBytes,
  size: number,
  { windowBytes, marginBytes, stats }: MergeWindows,
): number {
  const merger = new RangeMerger(windowBytes, bytes, size);
  const { parts4 } = merger;
  // The last window that passed its check: the starts of its tokens (and its end), the tokens
  // before it, and how many of its tokens are kept (1 ≤ kept ≤ its tokens).
  const starts = new Int32Array(windowBytes + 1);
  let before = 0;
  let kept = 0;
  let backoffs = 0;
  const maxBackoffs = 8 + 2 * Math.ceil(length / windowBytes);
  let point = 0;
  for (;;) {
    const end = Math.min(length, point + windowBytes);
    const tokens = merger.merge(point, end);
    if (stats !== undefined) stats.windows++;
    if (kept > 0) {
      const firstEnd = point + (parts4[0] as number);
      if (!splitHolds(starts[kept - 1] as number, point, firstEnd, bytes)) {
        if (stats !== undefined) stats.backoffs++;
        if (kept === 1 || ++backoffs > maxBackoffs) {
          if (stats !== undefined) stats.wholePieces++;
          return new RangeMerger(length, bytes, size).merge(0, length);
        }
        kept--;
        point = starts[kept] as number;
        continue;
      }
    }
    if (end === length) return before + kept + tokens;
    before += kept;
    // Record this window's token starts; keep those up to the last one at least the margin
    // before the window's end (at least one token, so every window moves on).
    let count = 0;
    for (let start = 0; start < end - point; start = parts4[4 * start] as number)
      starts[count++] = point + start;
    starts[count] = end;
    kept = 1;
    while (kept + 1 < count && (starts[kept + 1] as number) <= end - marginBytes) kept++;
    point = starts[kept] as number;
  }
}
