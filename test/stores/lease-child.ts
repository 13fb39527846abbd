/**
 * A process that takes a session's turn lease, for the cross-process lease tests (issue 24 §5).
 * Node runs it directly: `node test/stores/lease-child.ts '<json job>'`. It opens its store,
 * prints `ready`, waits for a line on stdin, takes the lease (`acquireTurnLease`, labelled
 * `job.label`), prints `held <holder>` or `busy <E_BUSY details as JSON>`, and keeps a held
 * lease — renewed — until it is killed; SIGTERM gives it back first.
 */
import { ChatfoldError } from '../../src/errors/chatfold-error.ts';
import { acquireTurnLease } from '../../src/stores/shared/turn-lease.ts';
import { openStore, type StoreSpec } from './store-spec.ts';

export interface LeaseJob {
  readonly store: StoreSpec;
  readonly sessionId: string;
  readonly label: string;
  readonly ttlMs?: number;
}

const job = JSON.parse(process.argv[2] ?? '{}') as LeaseJob;
const report = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

const store = openStore(job.store, 1);
// The SQL stores connect and migrate on first use: `ready` means that is done.
if (job.store.kind !== 'jsonl') await store.listSessions({ limit: 1 });
report('ready');
await new Promise((resolve) => process.stdin.once('data', resolve));
try {
  const lease = await acquireTurnLease(store, job.sessionId, {
    label: job.label,
    ...(job.ttlMs === undefined ? {} : { ttlMs: job.ttlMs }),
  });
  report(`held ${lease.holder}`);
  const keepAlive = setInterval(() => undefined, 60_000);
  process.once('SIGTERM', () => {
    clearInterval(keepAlive);
    void lease.release().then(() => store.close());
  });
} catch (error) {
  if (!ChatfoldError.hasCode(error, 'E_BUSY')) throw error;
  report(`busy ${JSON.stringify(error.details)}`);
  await store.close();
}
