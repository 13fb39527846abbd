/**
 * Reads server-sent events out of a byte stream the gateway passes through unchanged
 * (issue 21): the bytes go to the client as they arrive; this only watches them to rebuild the
 * reply for the session. Handles events split across chunks, `\r\n` line ends and comments.
 */

/** One event: its `event:` name (empty when none) and its `data:` lines joined by `\n`. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

/** Characters of one event kept at most: a runaway line cannot grow the gateway's memory. */
export const MAX_SSE_EVENT_CHARS = 8 * 1024 * 1024;

/** A push parser: feed chunks, get whole events. */
export interface SseReader {
  push(chunk: Uint8Array): void;
  /** Ends the stream (a last event without its blank line is still read). */
  end(): void;
}

/**
 * Creates a reader.
 *
 * @param onEvent Called once per event, in order.
 */
export function createSseReader(onEvent: (event: SseEvent) => void): SseReader {
  const decoder = new TextDecoder();
  let buffer = '';
  let name = '';
  let data: string[] = [];
  let size = 0;
  const dispatch = (): void => {
    if (data.length > 0) onEvent({ event: name, data: data.join('\n') });
    name = '';
    data = [];
    size = 0;
  };
  const line = (text: string): void => {
    if (text === '') {
      dispatch();
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') name = value;
    else if (field === 'data') {
      size += value.length;
      if (size <= MAX_SSE_EVENT_CHARS) data.push(value);
    }
  };
  const drain = (): void => {
    for (;;) {
      const newline = buffer.search(/\r\n|\n|\r/);
      if (newline < 0) break;
      // A lone \r at the chunk's end may be the first half of \r\n: wait for the next chunk.
      if (buffer[newline] === '\r' && newline === buffer.length - 1) break;
      const width = buffer.startsWith('\r\n', newline) ? 2 : 1;
      line(buffer.slice(0, newline));
      buffer = buffer.slice(newline + width);
    }
    if (buffer.length > MAX_SSE_EVENT_CHARS) buffer = '';
  };
  return {
    push(chunk) {
      buffer += decoder.decode(chunk, { stream: true });
      drain();
    },
    end() {
      buffer += decoder.decode();
      if (buffer !== '') {
        buffer = buffer.replace(/\r$/, '');
        line(buffer);
        buffer = '';
      }
      dispatch();
    },
  };
}
