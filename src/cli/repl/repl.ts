import { createInterface } from 'node:readline';
import type { Agent } from '../../agent/types.ts';
import type { OpenedStore } from '../open-store.ts';
import {
  BRACKETED_PASTE_OFF,
  BRACKETED_PASTE_ON,
  createPasteFilter,
  createPasteStore,
} from './bracketed-paste.ts';
import { createEventRenderer } from './render-events.ts';
import { findSlashCommand, type ReplContext } from './slash-commands/index.ts';
import type { Terminal } from './terminal.ts';

/** Options of {@link runRepl}. */
export interface ReplOptions {
  readonly agent: Agent;
  readonly terminal: Terminal;
  readonly store: OpenedStore;
  /** Printed when the REPL ends: the command that resumes the session. */
  readonly resumeCommand: string;
  readonly input: NodeJS.ReadableStream;
  /** A person at a terminal (prompt, line editing, Ctrl-C as a key); false for piped input. */
  readonly interactive: boolean;
}

/** How long the REPL waits, when it ends, for a cancelled turn to store what it produced. */
const SETTLE_MS = 5000;

/**
 * The chat loop (CLI-1): one line is one prompt (or a slash command), answered in order —
 * typed ahead or piped lines wait their turn. Ctrl-C cancels the running turn (the history
 * keeps what it produced); a second Ctrl-C, or Ctrl-D, ends the REPL; piped input ends it
 * after the last line's answer. Ending prints the command that resumes the session.
 *
 * @returns The exit code: 0, or 1 when the last turn of piped input failed.
 */
export function runRepl(options: ReplOptions): Promise<number> {
  const { agent, terminal, interactive } = options;
  // Large pastes go in at once and show collapsed (bracketed paste): see bracketed-paste.ts.
  const pastes = createPasteStore();
  const paste = interactive
    ? bracketedPasteInput(options.input, (text) => rl.write(pastes.add(text)))
    : undefined;
  const rl = createInterface({
    input: paste?.input ?? options.input,
    ...(interactive ? { output: process.stdout, terminal: true } : { terminal: false }),
    historySize: 200,
  });
  rl.setPrompt(terminal.style.bold(terminal.style.cyan('You> ')));
  /** Lines to answer: as typed (placeholders and all), and with the pastes put back. */
  const queue: { typed: string; text: string }[] = [];
  let busy = false;
  let inputClosed = false;
  let ending = false;
  let interrupts = 0;
  let controller: AbortController | undefined;
  let current: Promise<void> | undefined;
  let exitCode = 0;
  let resolveDone: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => {
    resolveDone = resolve;
  });

  const prompt = (): void => {
    if (interactive && !ending) rl.prompt();
  };

  const finish = async (): Promise<void> => {
    if (ending) return;
    ending = true;
    controller?.abort();
    if (current !== undefined) {
      await Promise.race([current, new Promise((resolve) => setTimeout(resolve, SETTLE_MS).unref())]);
    }
    terminal.notice(`\nResume this session: ${options.resumeCommand}\n`);
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onTerminate);
    rl.close();
    paste?.restore();
    resolveDone(exitCode);
  };

  const context = (signal: AbortSignal): ReplContext => ({
    agent,
    terminal,
    store: options.store,
    resumeCommand: options.resumeCommand,
    signal,
    ask: (question) =>
      interactive && !inputClosed
        ? new Promise<string | undefined>((resolve) => {
            rl.question(question, { signal }, resolve);
            signal.addEventListener('abort', () => resolve(undefined), { once: true });
          })
        : Promise.resolve(undefined),
    exit: () => {
      void finish();
    },
  });

  const handleLine = async (line: { typed: string; text: string }, signal: AbortSignal): Promise<void> => {
    const text = line.text.trim();
    if (text === '') return;
    // A command is what was typed: pasted text that starts with "/" is a prompt.
    if (line.typed.trimStart().startsWith('/')) {
      const [name = '', ...rest] = text.slice(1).split(/\s+/);
      const command = findSlashCommand(name.toLowerCase());
      if (command === undefined) {
        terminal.write(`Unknown command /${name}; /help lists the commands.\n`);
        return;
      }
      try {
        await command.run(text.slice(1 + name.length).trim() === '' ? '' : rest.join(' '), context(signal));
      } catch (error) {
        if (!signal.aborted) {
          terminal.notice(
            terminal.style.red(
              `✗ /${command.name} failed: ${error instanceof Error ? error.message : String(error)}\n`,
            ),
          );
        }
      }
      return;
    }
    const renderer = createEventRenderer(terminal);
    for await (const event of agent.run(text, { signal })) renderer.handle(event);
    const done = renderer.finish();
    exitCode = done?.reason === 'error' ? 1 : 0;
    if (interactive) terminal.write('\n'); // a blank line between turns
  };

  const pump = async (): Promise<void> => {
    if (busy || ending) return;
    while (queue.length > 0 && !ending) {
      const line = queue.shift() as { typed: string; text: string };
      busy = true;
      controller = new AbortController();
      current = handleLine(line, controller.signal);
      try {
        await current;
      } finally {
        busy = false;
        controller = undefined;
        current = undefined;
      }
    }
    if (inputClosed) await finish();
    else prompt();
  };

  function onInterrupt(): void {
    if (ending) return;
    if (busy) {
      if (interrupts >= 1 && controller?.signal.aborted) {
        void finish(); // the cancelled turn hangs: a second Ctrl-C leaves anyway
        return;
      }
      controller?.abort();
      queue.length = 0; // typed-ahead lines belonged to the cancelled turn
      interrupts = 1;
      return;
    }
    if (interrupts >= 1) {
      terminal.notice('\n');
      void finish();
      return;
    }
    interrupts = 1;
    rl.write(null, { ctrl: true, name: 'u' }); // clear the line being typed
    terminal.notice(terminal.style.dim('\n(Ctrl-C again or Ctrl-D to exit)\n'));
    prompt();
  }
  function onTerminate(): void {
    void finish();
  }

  rl.on('line', (line) => {
    interrupts = 0;
    queue.push({ typed: line, text: pastes.expand(line) });
    void pump();
  });
  rl.on('SIGINT', onInterrupt);
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onTerminate);
  rl.on('close', () => {
    inputClosed = true;
    if (interactive) {
      terminal.notice('\n');
      void finish(); // Ctrl-D
    } else void pump(); // piped input: answer what is queued, then end
  });
  prompt();
  return finished;
}

/**
 * Puts a terminal into raw mode with bracketed paste on, and returns the key stream without
 * the pastes (each goes to `onPaste` whole); `restore` undoes it. `undefined` for an input that
 * is not a terminal.
 */
function bracketedPasteInput(
  input: NodeJS.ReadableStream,
  onPaste: (text: string) => void,
): { input: NodeJS.ReadableStream; restore: () => void } | undefined {
  const tty = input as NodeJS.ReadStream;
  if (tty.isTTY !== true || typeof tty.setRawMode !== 'function' || process.stdout.isTTY !== true) {
    return undefined;
  }
  const filter = createPasteFilter(onPaste);
  tty.setRawMode(true);
  tty.pipe(filter);
  process.stdout.write(BRACKETED_PASTE_ON);
  // However the process ends, the terminal must not stay in bracketed-paste mode (the shell
  // would see the markers around every later paste).
  const turnOff = (): void => {
    process.stdout.write(BRACKETED_PASTE_OFF);
  };
  process.once('exit', turnOff);
  return {
    input: filter,
    restore() {
      process.off('exit', turnOff);
      turnOff();
      tty.unpipe(filter);
      tty.setRawMode(false);
      tty.pause();
    },
  };
}
