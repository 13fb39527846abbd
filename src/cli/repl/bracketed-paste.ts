import { Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

// Bracketed paste (xterm, and every terminal emulator since): with mode 2004 on, the terminal
// wraps pasted text in ESC[200~ … ESC[201~. Node's readline would take a 1 MB paste one key at a
// time (31–46 s measured); the REPL takes it out of the key stream at once instead and shows it
// collapsed on the input line, `[pasted 1.0 MB, 24,387 lines]`, sent whole with the line.

/** Turns bracketed paste on (written to the terminal when the REPL starts). */
export const BRACKETED_PASTE_ON = '\u001b[?2004h';
/** Turns it off again (when the REPL ends). */
export const BRACKETED_PASTE_OFF = '\u001b[?2004l';
export const PASTE_START = '\u001b[200~';
export const PASTE_END = '\u001b[201~';

/** The longest end of `text` that is the start of `marker` (a marker split across two reads). */
function partialMarkerAtEnd(text: string, marker: string): number {
  for (let length = Math.min(marker.length - 1, text.length); length > 0; length--) {
    if (text.endsWith(marker.slice(0, length))) return length;
  }
  return 0;
}

/**
 * A stream between the terminal and readline: keys pass through; each bracketed paste is taken
 * out whole and handed to `onPaste` (its line ends as the terminal sent them, usually `\r`).
 *
 * @param onPaste Called once per paste, in order with the keys around it.
 */
export function createPasteFilter(onPaste: (text: string) => void): Transform {
  const decoder = new StringDecoder('utf8');
  let carried = '';
  let pasting = false;
  let pasted: string[] = [];
  return new Transform({
    decodeStrings: false,
    transform(chunk: Buffer | string, _encoding, done) {
      let text = carried + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
      carried = '';
      while (text.length > 0) {
        const marker = pasting ? PASTE_END : PASTE_START;
        const at = text.indexOf(marker);
        if (at < 0) {
          const keep = partialMarkerAtEnd(text, marker);
          const passed = text.slice(0, text.length - keep);
          carried = text.slice(text.length - keep);
          if (pasting) pasted.push(passed);
          else if (passed !== '') this.push(passed);
          break;
        }
        if (pasting) {
          pasted.push(text.slice(0, at));
          onPaste(pasted.join(''));
          pasted = [];
        } else if (at > 0) {
          this.push(text.slice(0, at));
        }
        pasting = !pasting;
        text = text.slice(at + marker.length);
      }
      done();
    },
    flush(done) {
      const rest = carried + decoder.end();
      if (pasting) onPaste(pasted.join('') + rest);
      else if (rest !== '') this.push(rest);
      done();
    },
  });
}

/** `312 B`, `4.2 KB`, `1.0 MB` (decimal units, one decimal). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** Pasted text with `\r\n` and `\r` line ends as `\n` (terminals send Enter as `\r`). */
export const normalisePaste = (text: string): string => text.replace(/\r\n?/g, '\n');

/** Lines of a text: `a\nb` and `a\nb\n` are two. */
export function countLines(text: string): number {
  if (text === '') return 0;
  let lines = 1;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines++;
  return text.endsWith('\n') ? lines - 1 : lines;
}

/** Pastes shorter than this with no line break go on the input line as typed. */
export const COLLAPSE_PASTES_FROM = 200;

/**
 * What the REPL keeps of pastes: each large one under a placeholder (`[pasted 1.0 MB, 24,387
 * lines]`) that stands in the input line, and is replaced by the whole text when the line is sent.
 */
export interface PasteStore {
  /** The text to put on the input line for a paste: itself when short, else a placeholder. */
  add(text: string): string;
  /** The line with every placeholder replaced by its paste. */
  expand(line: string): string;
}

/** Creates an empty {@link PasteStore}; placeholders stay valid for the REPL's life (history recall). */
export function createPasteStore(): PasteStore {
  const pastes = new Map<string, string>();
  return {
    add(raw) {
      const text = normalisePaste(raw);
      if (text.length < COLLAPSE_PASTES_FROM && !text.includes('\n')) return text;
      const lines = countLines(text);
      const about = `pasted ${formatBytes(Buffer.byteLength(text))}, ${lines.toLocaleString('en-US')} ${lines === 1 ? 'line' : 'lines'}`;
      let placeholder = `[${about}]`;
      for (let n = 2; pastes.has(placeholder) && pastes.get(placeholder) !== text; n++) {
        placeholder = `[${about} #${n}]`;
      }
      pastes.set(placeholder, text);
      return placeholder;
    },
    expand(line) {
      // One pass over the line as typed: a paste that itself contains `[pasted …]` stays as it is.
      let expanded = '';
      let from = 0;
      for (let at = line.indexOf('[pasted ', from); at >= 0; at = line.indexOf('[pasted ', from)) {
        const end = line.indexOf(']', at);
        if (end < 0) break;
        const placeholder = line.slice(at, end + 1);
        expanded += line.slice(from, at) + (pastes.get(placeholder) ?? placeholder);
        from = end + 1;
      }
      return expanded + line.slice(from);
    },
  };
}
