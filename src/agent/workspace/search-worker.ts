// The search worker (issue 24): runs `search`'s pattern over file texts in a worker thread, so
// no pattern, however costly, holds the event loop of `chatfold serve`; the tool terminates the
// worker on abort or when its time budget runs out. Started by line-matcher.ts.
import { parentPort, workerData } from 'node:worker_threads';
import { RE2JS } from 're2js';
import { matchLines } from './match-lines.ts';

const { pattern, ignoreCase } = workerData as { pattern: string; ignoreCase: boolean };
const regex = RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);

parentPort?.on(
  'message',
  ({ bytes, maxShown, lineChars }: { bytes: Uint8Array; maxShown: number; lineChars: number }) => {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    parentPort?.postMessage(matchLines(regex, text, { maxShown, lineChars }));
  },
);
