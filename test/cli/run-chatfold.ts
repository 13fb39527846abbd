import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The built bin, exactly as users get it (`npm test` builds first). */
export const CHATFOLD_BIN = new URL('../../dist/cli/main.js', import.meta.url).pathname;

/** What one run of the CLI produced. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the built `chatfold` bin as a child process (black-box, CLI-5) with the given
 * arguments and extra environment; never rejects, the exit code is in the result.
 */
export function runChatfold(args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  if (!existsSync(CHATFOLD_BIN)) throw new Error(`${CHATFOLD_BIN} is missing: run \`npm run build\` first`);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CHATFOLD_BIN, ...args],
      { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A fixture path under test/fixtures. */
export const fixture = (name: string): string => new URL(`../fixtures/${name}`, import.meta.url).pathname;

/** Every file under a fixture folder, recursively, except licences and notes. */
export function conversationFixtures(folder: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return walk(path);
      return /\.(json|jsonl|traj)$/.test(name) ? [path] : [];
    });
  return walk(fixture(folder)).sort();
}
