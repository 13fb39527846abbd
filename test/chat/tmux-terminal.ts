import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A real terminal for black-box REPL tests: a detached tmux session (its own tmux server
 * socket, so nothing else on the machine is touched) running one command; keys go in with
 * `send-keys`, the screen comes out with `capture-pane`.
 */
export interface TerminalSession {
  /** Types text literally, then presses Enter. */
  typeLine(text: string): void;
  /**
   * Pastes text as a terminal does (`tmux paste-buffer -p`): wrapped in bracketed-paste
   * markers when the program turned the mode on, line ends sent as `\r`.
   */
  paste(text: string): void;
  /** Presses keys by tmux name: `C-c`, `C-d`, `Enter`. */
  press(...keys: string[]): void;
  /** The whole screen and scrollback, wrapped lines joined, trailing blanks trimmed. */
  screen(): string;
  /** The same with the colours and styles on screen as ANSI escapes (`capture-pane -e`). */
  styledScreen(): string;
  /** Waits until the screen (from `since` characters on) matches; returns that part. */
  waitFor(pattern: RegExp, options?: { timeoutMs?: number; since?: number }): Promise<string>;
  /** Ends the session and its tmux server. */
  close(): void;
}

/** Options of {@link openTerminal}. */
export interface TerminalOptions {
  /** argv of the program to run. */
  readonly command: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly width?: number;
  readonly height?: number;
}

let sessions = 0;

const shellQuote = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`;

/**
 * Starts the command in a fresh tmux server. When it exits the pane shows `[exited CODE]` and
 * stays, so tests can read the last lines and the exit code.
 */
export function openTerminal({
  command,
  cwd,
  env,
  width = 160,
  height = 60,
}: TerminalOptions): TerminalSession {
  sessions++;
  const socket = `chatfold-test-${process.pid}-${sessions}`;
  const tmux = (...args: string[]): string =>
    execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  const script = `${command.map(shellQuote).join(' ')}; echo "[exited $?]"; sleep 3600`;
  const environment = Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
  // The scrollback must hold a whole test: set before the session (and its pane) exists.
  tmux(
    'start-server',
    ';',
    'set-option',
    '-g',
    'history-limit',
    '50000',
    ';',
    'new-session',
    '-d',
    '-s',
    'test',
    '-x',
    String(width),
    '-y',
    String(height),
    '-c',
    cwd,
    ...environment,
    script,
  );
  const capture = (...flags: string[]): string =>
    tmux('capture-pane', '-p', '-J', ...flags, '-S', '-', '-t', 'test')
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .trimEnd();
  const screen = (): string => capture();
  return {
    typeLine(text) {
      tmux('send-keys', '-t', 'test', '-l', text);
      tmux('send-keys', '-t', 'test', 'Enter');
    },
    paste(text) {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'chatfold-paste-')), 'paste.txt');
      writeFileSync(file, text);
      tmux('load-buffer', '-b', 'paste', file);
      tmux('paste-buffer', '-p', '-d', '-b', 'paste', '-t', 'test');
      rmSync(path.dirname(file), { recursive: true, force: true });
    },
    press(...keys) {
      tmux('send-keys', '-t', 'test', ...keys);
    },
    screen,
    styledScreen: () => capture('-e'),
    async waitFor(pattern, { timeoutMs = 30_000, since = 0 } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = screen().slice(since);
        if (pattern.test(text)) return text;
        if (Date.now() > deadline) {
          throw new Error(`timed out waiting for ${pattern} on the screen:\n${screen()}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    close() {
      try {
        tmux('kill-server');
      } catch {
        // already gone
      }
    },
  };
}
