import type { Agent } from '../../../agent/types.ts';
import type { OpenedStore } from '../../open-store.ts';
import type { Terminal } from '../terminal.ts';

/** What a slash command gets (CLI-1). */
export interface ReplContext {
  readonly agent: Agent;
  readonly terminal: Terminal;
  readonly store: OpenedStore;
  /** The command that resumes this session (`chatfold chat dev --session abc123`). */
  readonly resumeCommand: string;
  /** Aborted by Ctrl-C while the command runs. */
  readonly signal: AbortSignal;
  /** Asks a yes/no question on an interactive terminal; `undefined` when there is nobody to ask. */
  ask(question: string): Promise<string | undefined>;
  /** Ends the REPL after this command. */
  exit(): void;
}

/** One slash command: its name, its help line and its handler, registered in one table. */
export interface SlashCommand {
  /** Without the slash: `context`. */
  readonly name: string;
  /** `/summarize [instructions]` */
  readonly usage: string;
  readonly help: string;
  run(args: string, context: ReplContext): Promise<void>;
}
