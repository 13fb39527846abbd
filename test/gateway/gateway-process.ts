/** Runs `chatfold gateway` from source as a child process (Node 24 strips the types), for tests. */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

const MAIN = new URL('../../src/cli/main.ts', import.meta.url).pathname;

export interface GatewayProcess {
  readonly child: ChildProcess;
  readonly exit: Promise<number | null>;
  /** Resolves with the gateway's URL once it listens. */
  ready(): Promise<string>;
  output(): { stdout: string; stderr: string };
}

/**
 * Starts `chatfold gateway` with `args`.
 *
 * @param args Arguments after `gateway`.
 * @param env Extra environment variables.
 */
export function spawnGateway(args: readonly string[], env: Record<string, string> = {}): GatewayProcess {
  const child = spawn(process.execPath, [MAIN, 'gateway', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CHATFOLD_STORE: '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  return {
    child,
    exit,
    output: () => ({ stdout, stderr }),
    async ready() {
      // Polls the output (no timing assertion: the test's timeout bounds it).
      while (!stdout.includes('Ctrl-C') && child.exitCode === null && child.signalCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      if (url === undefined) throw new Error(`the gateway did not start:\n${stdout}\n${stderr}`);
      return url;
    },
  };
}
