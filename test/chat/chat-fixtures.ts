import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NOTES } from '../agent/agent-fixtures.ts';
import type { TerminalSession } from './tmux-terminal.ts';

/** The CLI as users run it from a clone: Node runs the TypeScript entry directly. */
export const CHATFOLD_ENTRY = new URL('../../src/cli/main.ts', import.meta.url).pathname;

/** ~800 tokens of prose with no numbers or paths (keeps extractive summaries short). */
export const PROSE = Array.from(
  { length: 40 },
  () => 'We talked about the garden, the roses along the fence, and which plants need shade in summer.',
).join(' ');

/** What the scripted summarizer writes. */
export const SUMMARY =
  '## Context and goal\nThe user keeps describing the garden: roses along the fence, plants that need shade in summer.';

/** A scratch home for one test: HOME and XDG folders, a workspace, a folder outside it. */
export interface ChatHome {
  readonly dir: string;
  readonly workspace: string;
  readonly outside: string;
  readonly store: string;
  readonly env: Record<string, string>;
  /** Writes `.chatfold/agents/NAME.yaml` in the home (the project folder the CLI runs in). */
  agent(name: string, yaml: string): string;
}

/** Creates a scratch home with a workspace holding notes.md and a symlink that leads outside. */
export function chatHome(): ChatHome {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'chatfold-chat-')));
  const workspace = path.join(dir, 'ws');
  const outside = path.join(dir, 'outside');
  mkdirSync(workspace);
  mkdirSync(outside);
  writeFileSync(path.join(workspace, 'notes.md'), NOTES);
  writeFileSync(path.join(outside, 'secret.txt'), 'TOP SECRET\n');
  symlinkSync(path.join(outside, 'secret.txt'), path.join(workspace, 'link-out'));
  mkdirSync(path.join(dir, '.chatfold', 'agents'), { recursive: true });
  return {
    dir,
    workspace,
    outside,
    store: path.join(dir, 'chat.db'),
    env: {
      HOME: dir,
      XDG_CONFIG_HOME: path.join(dir, '.config'),
      XDG_DATA_HOME: path.join(dir, '.local', 'share'),
      OPENAI_COMPATIBLE_API_KEY: 'test-key',
      NO_COLOR: '1',
      PATH: process.env.PATH ?? '',
      TERM: 'xterm-256color',
    },
    agent(name, yaml) {
      const file = path.join(dir, '.chatfold', 'agents', `${name}.yaml`);
      writeFileSync(file, yaml);
      return file;
    },
  };
}

/** An agent file for the fake provider with a given window and context section. */
export function agentYaml(options: {
  name: string;
  baseURL: string;
  window: number;
  context: string;
  tools?: string;
}): string {
  return `name: ${options.name}
model:
  provider: openai-compatible
  name: gpt-4o
  baseURL: ${options.baseURL}
  maxInputTokens: ${options.window}
  maxOutputTokens: 1000
instructions: You are a careful assistant.
tools: ${options.tools ?? '[read_file, write_file, edit_file, list_directory, search]'}
context:
${options.context
  .trim()
  .split('\n')
  .map((line) => `  ${line.trim()}`)
  .join('\n')}
`;
}

/** What one run of `chatfold` produced. */
export interface ChatRun {
  readonly code: number | null;
  readonly stdout: string;
  /** stderr without the last line a `--print` run of a new session ends with (see `saved`). */
  readonly stderr: string;
  /** That line: `Saved as session ID in STORE; continue: COMMAND`, when it was printed. */
  readonly saved?: { readonly session: string; readonly line: string };
}

/** The line `--print` ends with when it made a new session. */
const SAVED_LINE = /(?:^|\n)(Saved as session (\w+) in [^\n]*\n)$/;

/** Runs `chatfold ARGS` (the TypeScript entry) in the home with `input` piped to stdin (and `env` over the home's). */
export function runChat(
  home: ChatHome,
  args: readonly string[],
  input = '',
  env: Readonly<Record<string, string>> = {},
): Promise<ChatRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CHATFOLD_ENTRY, ...args], {
      cwd: home.dir,
      env: { ...home.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => {
      const saved = SAVED_LINE.exec(stderr);
      if (saved === null) resolve({ code, stdout, stderr });
      else {
        const line = saved[1] as string;
        resolve({
          code,
          stdout,
          stderr: stderr.slice(0, stderr.length - line.length),
          saved: { session: saved[2] as string, line },
        });
      }
    });
    child.stdin.end(input);
  });
}

/** `--model openai-compatible:MODEL --base-url URL`: flags for a local OpenAI-compatible server. */
export const localModel = (baseURL: string, model = 'gpt-4o'): string[] => [
  '--model',
  `openai-compatible:${model}`,
  '--base-url',
  baseURL,
];

/** In `chatfold chat` under tmux: types a line once the prompt is back, and returns where its output starts on the screen. */
export async function send(terminal: TerminalSession, line: string): Promise<number> {
  const before = terminal.screen();
  await terminal.waitFor(/You>$/, { since: Math.max(0, before.length - 10) });
  const since = terminal.screen().length;
  terminal.typeLine(line);
  return since;
}
