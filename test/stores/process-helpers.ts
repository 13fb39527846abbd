/**
 * Child processes for the cross-process store tests (ST-5): a test starts `node <script>
 * '<json job>'` (Node 24 runs `.ts` directly), the child prints `ready` once its store is open,
 * waits for `go()` on stdin when its job says so, and reports one event per stdout line. Stdout
 * is a pipe, which Node writes synchronously on POSIX, so a line the test has read was printed
 * before any later point where the child could be killed.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

export interface Child {
  readonly process: ChildProcess;
  /** Every complete stdout line so far, `ready` included. */
  readonly lines: string[];
  /** Resolves when the child printed `ready`; rejects with its stderr if it exited first. */
  readonly ready: Promise<void>;
  /** Writes `go` to the child's stdin and closes it. */
  readonly go: () => void;
  readonly exited: Promise<ChildExit>;
}

/**
 * Starts `node <script> <JSON of job>`.
 *
 * @param script - Absolute path of the child's `.ts` file.
 * @param job - What the child should do; passed as one JSON argument.
 * @returns The running child.
 */
export function startChild(script: string, job: unknown): Child {
  const child = spawn(process.execPath, [script, JSON.stringify(job)], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  let markReady: () => void = () => undefined;
  let failReady: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const pieces = (partial + chunk).split('\n');
    partial = pieces.pop() ?? '';
    for (const line of pieces) {
      if (line === 'ready') markReady();
      lines.push(line);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  // A killed child's stdin may close before `go` is written.
  child.stdin.on('error', () => undefined);
  const exited = new Promise<ChildExit>((resolve) =>
    child.on('close', (code, signal) => {
      failReady(new Error(`${script} exited (${code ?? signal}) before ready: ${stderr}`));
      resolve({ code, signal, stderr });
    }),
  );
  const go = () => child.stdin.end('go\n');
  return { process: child, lines, ready, go, exited };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
