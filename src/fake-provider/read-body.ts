import type { IncomingMessage } from 'node:http';

/** A request body read up to a limit: the text, too large, or cut off by the client. */
export type BodyRead =
  | { readonly type: 'body'; readonly text: string; readonly bytes: number }
  | { readonly type: 'too-large'; readonly bytes: number }
  | { readonly type: 'aborted' };

/**
 * Reads a request body, stopping at `maxBytes` (what was read is dropped at once, so a 200 MB
 * upload never sits in memory) and settling — never throwing — when the client disconnects
 * mid-body (an unhandled `Error: aborted` used to end the `chatfold fake-provider` process).
 *
 * @param request - The incoming request.
 * @param maxBytes - The largest body accepted.
 * @returns What was read.
 */
export function readBody(request: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    const settle = (result: BodyRead) => {
      if (settled) return;
      settled = true;
      request.off('data', onData);
      chunks.length = 0;
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        settle({ type: 'too-large', bytes });
        return;
      }
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.on('end', () => {
      if (settled) return;
      const text = Buffer.concat(chunks).toString('utf8');
      settle({ type: 'body', text, bytes });
    });
    // `error` (ECONNRESET, "aborted") or `close` before `end`: the client went away.
    request.on('error', () => settle({ type: 'aborted' }));
    request.on('close', () => {
      if (!request.complete) settle({ type: 'aborted' });
    });
  });
}
