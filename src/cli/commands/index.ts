import type { Command } from 'commander';
import { registerCount } from './count.ts';
import { registerFakeProvider } from './fake-provider.ts';
import { registerModels } from './models.ts';
import { registerReplay } from './replay.ts';

/** Registers one CLI command on the program. Each command lives in its own file. */
export type RegisterCommand = (program: Command) => void;

/** Every command of the `chatfold` CLI, in help order. */
export const commands: readonly RegisterCommand[] = [
  registerReplay,
  registerCount,
  registerModels,
  registerFakeProvider,
];
