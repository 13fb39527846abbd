// The search worker (issue 24): runs `search`'s pattern over file texts in a worker thread, so
// no pattern, however costly, holds the event loop of `chatfold serve`; the tool terminates the
// worker on abort or when its time budget runs out. Started and reused by line-matcher.ts.
import { parentPort } from 'node:worker_threads';
import { RE2JS } from 're2js';
import { matchLines } from './match-lines.ts';

/** One file to match (the message line-matcher.ts sends). */
interface MatchRequest {
  readonly pattern: string;
  readonly ignoreCase: boolean;
  readonly bytes: Uint8Array;
  readonly maxShown: number;
  readonly lineChars: number;
}

// A search sends many files with one pattern: compile it once.
let compiled: { key: string; regex: RE2JS } | undefined;

parentPort?.on('message', ({ pattern, ignoreCase, bytes, maxShown, lineChars }: MatchRequest) => {
  const key = `${ignoreCase ? 'i' : '-'}${pattern}`;
  if (compiled?.key !== key) {
    compiled = { key, regex: RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) };
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  parentPort?.postMessage(matchLines(compiled.regex, text, { maxShown, lineChars }));
});
