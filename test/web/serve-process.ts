// Runs `chatfold serve` as a child process (black-box, CLI-4) and waits for the URL it prints.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The CLI entry point, run by Node directly (the client it serves is the built one in dist/web/client). */
export const CHATFOLD_MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** A running `chatfold serve`. */
export interface ServeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
  /** SIGTERM, then wait for the exit (the server closes its store). */
  stop(): Promise<void>;
}

/** The environment without provider keys or a token, with data folders under `home`. */
export function cleanEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/_API_KEY$|^CHATFOLD_/.test(key)) continue;
    env[key] = value;
  }
  return { ...env, HOME: home, XDG_DATA_HOME: `${home}/data`, XDG_CONFIG_HOME: `${home}/config`, ...extra };
}

/** Runs `chatfold serve …` to completion (for start-up failures); never rejects. */
export function runServe(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CHATFOLD_MAIN, 'serve', ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // A server that did start is stopped: the caller only wanted the start-up result.
      if (stdout.includes('listening on')) child.kill('SIGTERM');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

/** Starts `chatfold serve --port 0 …` and resolves once it listens. */
export function startServe(args: readonly string[], env: NodeJS.ProcessEnv): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CHATFOLD_MAIN, 'serve', '--port', '0', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`chatfold serve did not start within 60 s:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+?)\/?\s/.exec(output);
      // The banner ends with "Ctrl-C stops": everything before it is printed.
      if (match?.[1] === undefined || !output.includes('Ctrl-C stops')) return;
      clearTimeout(timer);
      resolve({
        url: match[1],
        child,
        output: () => output,
        async stop() {
          if (child.exitCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`chatfold serve exited with ${code} before listening:\n${output}`));
    });
  });
}
