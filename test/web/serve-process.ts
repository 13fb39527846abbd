// Runs `chatfold serve` and `chatfold worker` as child processes (black-box, CLI-4): to completion, or until
// their start-up banner (serve: the URL it prints).
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The CLI entry point, run by Node directly (the client it serves is the built one in dist/web/client). */
export const CHATFOLD_MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** A running `chatfold serve`; stopping it closes its store. */
export interface ServeProcess extends ChatfoldProcess {
  readonly url: string;
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

/**
 * Runs `chatfold <command> …` to completion (for start-up failures); never rejects. A process
 * that does start (its banner ends with "Ctrl-C stops") is stopped: the caller only wanted the
 * start-up result.
 */
export function runChatfoldProcess(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CHATFOLD_MAIN, command, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('Ctrl-C stops')) child.kill('SIGTERM');
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

/** A running `chatfold <command>` child process. */
export interface ChatfoldProcess {
  readonly child: ChildProcess;
  output(): string;
  /** SIGTERM, then wait for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts `chatfold <command> …` and resolves once its start-up banner is printed (it ends with
 * "Ctrl-C stops"); rejects when it exits first or takes over 60 s.
 */
export function startChatfoldProcess(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<ChatfoldProcess> {
  const child = spawn(process.execPath, [CHATFOLD_MAIN, command, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`chatfold ${command} did not start within 60 s:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (!output.includes('Ctrl-C stops')) return;
      clearTimeout(timer);
      resolve({
        child,
        output: () => output,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
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
      reject(new Error(`chatfold ${command} exited with ${code} before starting:\n${output}`));
    });
  });
}

/** Starts `chatfold serve --port 0 …` and resolves once it listens. */
export async function startServe(args: readonly string[], env: NodeJS.ProcessEnv): Promise<ServeProcess> {
  const started = await startChatfoldProcess('serve', ['--port', '0', ...args], env);
  const url = /listening on (http:\/\/\S+?)\/?\s/.exec(started.output())?.[1];
  if (url === undefined) {
    await started.stop();
    throw new Error(`chatfold serve printed no URL:\n${started.output()}`);
  }
  return { ...started, url };
}
