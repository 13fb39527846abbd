import type { Command } from 'commander';

/** Registers one CLI command on the program. Each command lives in its own file. */
export type RegisterCommand = (program: Command) => void;

/** A command of the CLI: its name, and the module that registers it (loaded only when needed). */
export interface CommandEntry {
  readonly name: string;
  readonly load: () => Promise<RegisterCommand>;
}

/**
 * Every command of the `chatfold` CLI, in help order. A command's module (and what it imports:
 * the web server, the agent, SDKs) loads only when that command runs or help lists them all,
 * so `chatfold count` does not parse the web app first.
 */
export const commands: readonly CommandEntry[] = [
  { name: 'chat', load: async () => (await import('./chat.ts')).registerChat },
  { name: 'agents', load: async () => (await import('./agents.ts')).registerAgents },
  { name: 'replay', load: async () => (await import('./replay.ts')).registerReplay },
  { name: 'count', load: async () => (await import('./count.ts')).registerCount },
  { name: 'models', load: async () => (await import('./models.ts')).registerModels },
  { name: 'fake-provider', load: async () => (await import('./fake-provider.ts')).registerFakeProvider },
  { name: 'serve', load: async () => (await import('./serve.ts')).registerServe },
  { name: 'worker', load: async () => (await import('./worker.ts')).registerWorker },
  { name: 'gateway', load: async () => (await import('./gateway.ts')).registerGateway },
];
