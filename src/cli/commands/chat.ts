import type { Command } from 'commander';
import { type ChatCliOptions, startChat } from '../repl/start-chat.ts';

/**
 * `chatfold chat [agent] [--session ID] [--workspace DIR] [--store FILE|DIR|URL]
 * [--model provider:name] [--base-url URL] [--recall] [--print "prompt"]` (CLI-1): the terminal agent.
 */
export function registerChat(program: Command): void {
  program
    .command('chat')
    .description(
      'chat with an agent in the terminal: streaming answers, workspace tools, visible compaction, /context',
    )
    .argument(
      '[agent]',
      'agent name (./.chatfold/agents/, the user config folder) or a path to a .yaml agent file',
    )
    .option('--session <id>', 'resume this session (with --new: start it under this id)')
    .option('--new', 'start a new session (the default without --session)')
    .option('--workspace <dir>', 'folder the file tools work in (default: the current folder)')
    .option(
      '--store <location>',
      'SQLite file, JSONL folder or postgres:// URL (default: $CHATFOLD_STORE, else chatfold.db in the user data folder)',
    )
    .option(
      '--model <provider:name>',
      'override the model, e.g. openai:gpt-4o, openai-compatible:qwen2.5:32b',
    )
    .option(
      '--base-url <url>',
      'base URL of an OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio) or a proxy',
    )
    .option(
      '--window <tokens>',
      "the model's context window in tokens (e.g. 32768 or 32k); over the agent file's model.maxInputTokens",
    )
    .option(
      '--timeout <seconds>',
      'cancel a model call that sends nothing for this long (default 300; local models on a CPU may need more)',
    )
    .option(
      '--recall',
      'offer the model the chatfold_recall tool: it reads back what compaction folded away (also `recall: true` in an agent file)',
    )
    .option('--print <prompt>', 'run one turn, print the answer and exit (scripts)')
    .action(async (agent: string | undefined, options: ChatCliOptions) => {
      process.exitCode = await startChat(agent, options);
    });
}
