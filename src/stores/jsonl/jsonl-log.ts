import { open, stat } from 'node:fs/promises';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { storeError } from './file-lock.ts';

const NEWLINE = 0x0a;

export interface JsonlLogOptions<T> {
  /** Turns one parsed line into an entry; returns a reason string when the line is invalid. */
  readonly parse: (value: unknown) => T | string;
  /**
   * Whether an entry ends a group of lines written together (default: every entry does).
   * Entries of an unfinished group are not returned, so a crash mid-write stores none of them.
   */
  readonly isCommit?: (entry: T) => boolean;
}

/**
 * An append-only JSONL file and the entries read from it so far. `refresh()` reads only the
 * bytes added since the last call (the file's size and inode say whether there are any), so
 * keeping up with other writers costs one `stat` in the common case.
 *
 * Only whole groups of complete lines count. Bytes after the last complete group — a torn line
 * left by a crash, or a write another process is making right now — are ignored, and the next
 * writer (who holds the lock, so no write is in progress) cuts them off before appending.
 */
export class JsonlLog<T> {
  readonly path: string;
  readonly #parse: JsonlLogOptions<T>['parse'];
  readonly #isCommit: (entry: T) => boolean;
  #entries: T[] = [];
  /** Bytes of the file that hold whole groups: everything read into `entries`. */
  #committedBytes = 0;
  /** Lines (blank ones included) in those bytes, so errors can name a line as editors count it. */
  #committedLines = 0;
  #ino = -1;
  #resetPending = false;

  constructor(path: string, { parse, isCommit = () => true }: JsonlLogOptions<T>) {
    this.path = path;
    this.#parse = parse;
    this.#isCommit = isCommit;
  }

  /** Every committed entry, oldest first. Do not modify. */
  get entries(): readonly T[] {
    return this.#entries;
  }

  /**
   * Reads what was appended since the last call.
   *
   * @returns `reset: true` when the file was replaced or cut below what was read (everything is
   * read again; derived indexes must be rebuilt), and the entries added.
   */
  async refresh(): Promise<{ readonly reset: boolean; readonly added: readonly T[] }> {
    let info: { size: number; ino: number };
    try {
      info = await stat(this.path);
    } catch (error) {
      if ((error as { code?: string }).code !== 'ENOENT') throw storeError(error, this.path, 'stat');
      info = { size: 0, ino: -1 };
    }
    let reset = this.#resetPending;
    if (info.ino !== this.#ino || info.size < this.#committedBytes) {
      reset ||= this.#committedBytes > 0;
      this.#entries = [];
      this.#committedBytes = 0;
      this.#committedLines = 0;
      this.#ino = info.ino;
    }
    if (info.size === this.#committedBytes) {
      this.#resetPending = false;
      return { reset, added: [] };
    }
    const bytes = await this.#read(this.#committedBytes, info.size);
    // Until a reset is handed to the caller, every refresh reports it (an invalid line may throw).
    this.#resetPending = reset;
    const added = this.#consume(bytes);
    this.#resetPending = false;
    return { reset, added };
  }

  /**
   * Appends lines as one write; the caller holds the lock and has just called `refresh()`.
   * A torn tail is cut off first. With `fsync` the data is on disk before this resolves.
   *
   * @param text - Complete lines, each ending in `\n`, forming whole groups.
   * @param entries - The entries those lines hold, added to `entries` without re-reading.
   */
  async append(text: string, entries: readonly T[], { fsync }: { readonly fsync: boolean }): Promise<void> {
    const data = Buffer.from(text, 'utf8');
    let handle: Awaited<ReturnType<typeof open>> | undefined;
    try {
      handle = await open(this.path, 'a');
      const info = await handle.stat();
      if (info.ino !== this.#ino) {
        if (this.#committedBytes > 0) {
          throw new ChatfoldError(
            'E_STORE',
            `jsonl store: ${this.path} was replaced while the store held its lock; refusing to append`,
            { path: this.path },
          );
        }
        this.#ino = info.ino;
      }
      if (info.size > this.#committedBytes) await handle.truncate(this.#committedBytes);
      let written = 0;
      while (written < data.length) {
        const { bytesWritten } = await handle.write(data, written, data.length - written);
        written += bytesWritten;
      }
      if (fsync) await handle.datasync();
    } catch (error) {
      throw storeError(error, this.path, 'append to');
    } finally {
      await handle?.close();
    }
    this.#committedBytes += data.length;
    for (let at = data.indexOf(NEWLINE); at !== -1; at = data.indexOf(NEWLINE, at + 1))
      this.#committedLines++;
    this.#entries.push(...entries);
  }

  async #read(from: number, to: number): Promise<Buffer> {
    const buffer = Buffer.allocUnsafe(to - from);
    let handle: Awaited<ReturnType<typeof open>> | undefined;
    let filled = 0;
    try {
      handle = await open(this.path, 'r');
      while (filled < buffer.length) {
        const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, from + filled);
        if (bytesRead === 0) break; // cut by a writer since the stat: read what is there
        filled += bytesRead;
      }
    } catch (error) {
      throw storeError(error, this.path, 'read');
    } finally {
      await handle?.close();
    }
    return buffer.subarray(0, filled);
  }

  /**
   * Parses complete lines and keeps whole groups; returns the entries added. An invalid line
   * throws before anything is kept, so every later read fails the same way.
   */
  #consume(bytes: Buffer): T[] {
    const added: T[] = [];
    let committedBytes = this.#committedBytes;
    let committedLines = this.#committedLines;
    let pending: T[] = [];
    let pendingBytes = 0;
    let pendingLines = 0;
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
      const line = bytes.toString('utf8', start, end);
      pendingLines++;
      pendingBytes += end + 1 - start;
      start = end + 1;
      if (line.trim() !== '') {
        pending.push(this.#parseLine(line, committedLines + pendingLines));
        if (!this.#isCommit(pending.at(-1) as T)) continue;
      } else if (pending.length > 0) {
        continue; // a blank line inside an unfinished group stays with it
      }
      added.push(...pending);
      committedBytes += pendingBytes;
      committedLines += pendingLines;
      pending = [];
      pendingBytes = 0;
      pendingLines = 0;
    }
    this.#committedBytes = committedBytes;
    this.#committedLines = committedLines;
    this.#entries.push(...added);
    return added;
  }

  #parseLine(line: string, lineNumber: number): T {
    let value: unknown;
    let problem: string;
    try {
      value = JSON.parse(line);
      const entry = this.#parse(value);
      if (typeof entry !== 'string') return entry;
      problem = entry;
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error);
    }
    throw new ChatfoldError(
      'E_STORE',
      `jsonl store: ${this.path} line ${lineNumber} is not a valid entry (${problem}); the file was changed by something other than chatfold — restore it from a backup or remove that line`,
      { path: this.path, line: lineNumber },
    );
  }
}
