import type { Command } from 'commander';
import type { AgentModelSpec } from '../../agent/types.ts';
import { runCompactionWorker } from '../../background/run-worker.ts';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { backgroundSessions, logQueueEvent } from '../background-sessions.ts';
import { openCompactionQueue } from '../open-queue.ts';
import { openStore } from '../open-store.ts';
import { parsePositiveInteger, print } from '../options.ts';
import { type AgentProcessCliOptions, agentDefinition } from './serve.ts';

interface WorkerCliOptions extends AgentProcessCliOptions {
  concurrency: number;
}

/** Resolves on the first SIGINT or SIGTERM. */
export function untilStopSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}

/**
 * `chatfold worker --store postgres://… [--agent NAME|FILE] [--concurrency N]` (issue 13): runs
 * background compactions for every `chatfold serve` on that database, until Ctrl-C. Workers
 * are stateless (the plan goes to the store, the job stays in pg-boss until done), so any number
 * can run and one killed mid-job loses nothing: pg-boss retries its job after the heartbeat.
 */
export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run background compactions for chatfold serve on a PostgreSQL store until Ctrl-C')
    .option('--store <url>', 'postgres:// URL of the store the servers use (default: $CHATFOLD_STORE)')
    .option('--agent <name|file>', 'the agent file the servers run (same model, window and summarizer)')
    .option('--model <provider:name>', 'model when no --agent is given, e.g. openai:gpt-4o-mini')
    .option('--base-url <url>', 'base URL of an OpenAI-compatible server (Ollama, llama.cpp, vLLM)')
    .option('--window <tokens>', "the model's context window, overriding the registry", parsePositiveInteger)
    .option(
      '--workspace <dir>',
      "root of the agent's workspace tools (their definitions count against the window)",
      '.',
    )
    .option('--concurrency <n>', 'summaries written at once by this worker', parsePositiveInteger, 1)
    .action(async (options: WorkerCliOptions) => {
      const opened = openCompactionQueue(options.store, { onEvent: logQueueEvent });
      if (!opened.isShared) {
        await opened.queue.close();
        throw new ChatfoldError(
          'E_INVALID_OPTIONS',
          'chatfold worker needs a store that several processes share: --store postgres://user@host:5432/db (SQLite and JSONL stores compact in the chatfold serve process itself)',
          { option: 'store' },
        );
      }
      const { store, description } = openStore(options.store);
      try {
        const agent = await agentDefinition(options, undefined);
        const spec = agent.model as AgentModelSpec;
        await opened.start();
        const stop = await runCompactionWorker({
          chatfold: backgroundSessions({ store, agent, modelId: spec.name, queue: opened.queue }),
          queue: opened.queue,
          concurrency: options.concurrency,
        });
        print(
          `chatfold worker: ${options.concurrency} at once · ${opened.description} · store ${description}`,
        );
        print(`  agent ${agent.name ?? 'agent'} · ${spec.provider}:${spec.name}`);
        print('Ctrl-C stops (running summaries go back to the queue)');
        await untilStopSignal();
        await stop();
      } finally {
        await opened.queue.close();
        await store.close();
      }
    });
}
