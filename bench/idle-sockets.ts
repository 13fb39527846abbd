/**
 * Idle-socket load (issue 24, part 6): `chatfold serve` as a child process, limited to 1,024 file
 * descriptors (a common `ulimit -n`), held by 1,100 idle connections — a third send nothing, the
 * rest start a request and never finish its headers — then 20 normal `GET /api/info` requests,
 * one after the other, each given 5 s. Then 300 sockets trickle a header line every second:
 * how long until the server has closed them all (given up at 30 s).
 *
 * Two runs: the limits off (timeouts and caps as high as Node's defaults allow, as before issue
 * 24) and the defaults (`HTTP_LIMITS`).
 *
 * Run: `node bench/idle-sockets.ts`. Writes bench/results/idle-sockets.json and prints markdown.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HTTP_LIMITS } from '../src/web/server/connection-limits.ts';
import { machine, median } from './harness.ts';

const IDLE = 1_100;
const NORMAL = 20;
const TRICKLING = 300;
const GIVE_UP_MS = 30_000;
const FD_LIMIT = 1_024;
const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

interface Run {
  readonly name: string;
  readonly args: readonly string[];
}

const RUNS: readonly Run[] = [
  {
    name: 'limits off (before issue 24)',
    args: [
      '--headers-timeout',
      '60000',
      '--request-timeout',
      '300000',
      '--max-connections',
      '1000000',
      '--max-connections-per-address',
      '1000000',
    ],
  },
  { name: 'defaults', args: [] },
];

async function startServe(args: readonly string[], home: string) {
  const command = `ulimit -n ${FD_LIMIT}; exec "${process.execPath}" "${MAIN}" serve --fake-provider --port 0 ${args.join(' ')}`;
  const child = spawn('sh', ['-c', command], {
    env: {
      ...process.env,
      HOME: home,
      XDG_DATA_HOME: join(home, 'data'),
      XDG_CONFIG_HOME: join(home, 'config'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[^/\s]+)\//.exec(output);
      if (match?.[1] !== undefined && output.includes('Ctrl-C stops')) resolve(match[1]);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${output}`)));
  });
  return {
    url,
    port: Number(new URL(url).port),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }),
  };
}

/** Opens a socket that sends `prefix` and then nothing; never rejects (a refused socket counts as closed). */
function openSocket(port: number, prefix: string): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.once('connect', () => {
      if (prefix !== '') socket.write(prefix);
      resolve(socket);
    });
    socket.once('close', () => resolve(socket));
  });
}

const isOpen = (socket: Socket): boolean => !socket.destroyed && socket.readyState === 'open';

async function normalRequests(url: string): Promise<{ answered: number; latencies: number[] }> {
  const latencies: number[] = [];
  let answered = 0;
  for (let i = 0; i < NORMAL; i++) {
    const started = performance.now();
    try {
      const response = await fetch(`${url}/api/info`, { signal: AbortSignal.timeout(5_000) });
      await response.text();
      if (response.ok) {
        answered++;
        latencies.push(performance.now() - started);
      }
    } catch {
      // timed out or refused: not answered
    }
  }
  return { answered, latencies };
}

async function measure(run: Run) {
  const home = mkdtempSync(join(tmpdir(), 'chatfold-idle-bench-'));
  const serve = await startServe(run.args, home);
  try {
    const idle: Socket[] = [];
    for (let i = 0; i < IDLE; i++) {
      idle.push(
        await openSocket(serve.port, i % 3 === 0 ? '' : 'GET /api/info HTTP/1.1\r\nHost: x\r\nX-Slow: '),
      );
    }
    const heldOpen = idle.filter(isOpen).length;
    const normal = await normalRequests(serve.url);
    for (const socket of idle) socket.destroy();

    const trickling: Socket[] = [];
    for (let i = 0; i < TRICKLING; i++)
      trickling.push(await openSocket(serve.port, 'GET /api/info HTTP/1.1\r\n'));
    const started = performance.now();
    const drip = setInterval(() => {
      for (const socket of trickling) if (isOpen(socket)) socket.write('X-A: b\r\n');
    }, 1_000);
    while (trickling.some(isOpen) && performance.now() - started < GIVE_UP_MS) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    clearInterval(drip);
    const stillOpen = trickling.filter(isOpen).length;
    const closedAfterMs = performance.now() - started;
    for (const socket of trickling) socket.destroy();
    return {
      run: run.name,
      idleSockets: IDLE,
      idleStillOpenWhenRequesting: heldOpen,
      normalAnswered: normal.answered,
      normalRequests: NORMAL,
      normalMedianMs: normal.latencies.length === 0 ? null : Math.round(median(normal.latencies) * 10) / 10,
      trickling: TRICKLING,
      tricklingStillOpenAtEnd: stillOpen,
      tricklingAllClosedAfterS: stillOpen === 0 ? Math.round(closedAfterMs / 100) / 10 : null,
    };
  } finally {
    await serve.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

const results = [];
for (const run of RUNS) results.push(await measure(run));
const output = { machine: machine(), fdLimit: FD_LIMIT, limits: HTTP_LIMITS, results };
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('./results/idle-sockets.json', import.meta.url),
  `${JSON.stringify(output, null, 2)}\n`,
);
console.log(
  `| run | idle sockets held | normal requests answered | median ms | ${TRICKLING} trickling sockets all closed after |`,
);
console.log('| --- | --- | --- | --- | --- |');
for (const result of results) {
  console.log(
    `| ${result.run} | ${result.idleStillOpenWhenRequesting} of ${result.idleSockets} | ${result.normalAnswered} of ${result.normalRequests} | ${result.normalMedianMs ?? '—'} | ${result.tricklingAllClosedAfterS === null ? `${result.tricklingStillOpenAtEnd} still open at ${GIVE_UP_MS / 1000} s` : `${result.tricklingAllClosedAfterS} s`} |`,
  );
}
