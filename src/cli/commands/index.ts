import type { Command } from 'commander';
import { registerAgents } from './agents.ts';
import { registerChat } from './chat.ts';
import { registerCount } from './count.ts';
import { registerFakeProvider } from './fake-provider.ts';
import { registerModels } from './models.ts';
import { registerReplay } from './replay.ts';
import { registerServe } from './serve.ts';
import { registerWorker } from './worker.ts';

/** Registers one CLI command on the program. Each command lives in its own file. */
export type RegisterCommand = (program: Command) => void;

/** Every command of the `chatfold` CLI, in help order. */
export const commands: readonly RegisterCommand[] = [
  registerChat,
  registerAgents,
  registerReplay,
  registerCount,
  registerModels,
  registerFakeProvider,
  registerServe,
  registerWorker,
];
