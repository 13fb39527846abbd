// The search worker (issue 24): compiles `search`'s pattern and runs it over file texts in a
// worker thread, so no pattern, however costly to compile or to run, holds the event loop of
// `chatfold serve`; the tool terminates the worker on abort or when its time budget runs out.
// Started and reused by line-matcher.ts.
import { parentPort } from 'node:worker_threads';
import { RE2JS } from 're2js';
import { matchLines } from './match-lines.ts';

/** What line-matcher.ts asks: compile a pattern, or match the compiled one over one file. */
export type SearchWorkerRequest =
  | { readonly type: 'compile'; readonly pattern: string; readonly ignoreCase: boolean }
  | {
      readonly type: 'match';
      readonly bytes: Uint8Array;
      readonly maxShown: number;
      readonly lineChars: number;
    };

let regex: RE2JS | undefined;

parentPort?.on('message', (request: SearchWorkerRequest) => {
  if (request.type === 'compile') {
    try {
      regex = RE2JS.compile(request.pattern, request.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
      parentPort?.postMessage({ error: undefined });
    } catch (error) {
      regex = undefined;
      parentPort?.postMessage({ error: error instanceof Error ? error.message : String(error) });
    }
    return;
  }
  if (regex === undefined) throw new Error('match before a successful compile');
  const { bytes, maxShown, lineChars } = request;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  parentPort?.postMessage(matchLines(regex, text, { maxShown, lineChars }));
});
