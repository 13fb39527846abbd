// A compaction worker in its own process, for the SIGKILL tests (issue 13): it takes jobs from a
// pg-boss queue, prints `started <sessionId> <attempt>` when a handler starts, and then hangs
// until it is killed. Run: node test/background/queue-worker-child.ts <connectionString> <schema> <queueName> <expireInSeconds>
import { pgBossQueue } from '../../src/background/pg-boss-queue.ts';

const [connectionString, schema, queueName, expire] = process.argv.slice(2);
if (
  connectionString === undefined ||
  schema === undefined ||
  queueName === undefined ||
  expire === undefined
) {
  process.stderr.write(
    'usage: queue-worker-child.ts <connectionString> <schema> <queueName> <expireInSeconds>\n',
  );
  process.exit(2);
}
const queue = pgBossQueue({
  connectionString,
  schema,
  queueName,
  expireInSeconds: Number(expire),
  superviseIntervalSeconds: 1,
  pollingIntervalSeconds: 0.5,
  retryDelaySeconds: 1,
  onEvent: (event) => {
    if (event.type === 'job-start') process.stdout.write(`started ${event.job.sessionId} ${event.attempt}\n`);
  },
});
await queue.work(() => new Promise<void>(() => undefined));
process.stdout.write('ready\n');
