/**
 * Seed 003's client in TypeScript (AG-3): an agent over a local OpenAI-compatible model
 * (Ollama, llama.cpp, vLLM, LM Studio) whose history chatfold keeps inside the window — token
 * counting, compaction between model calls, and a PreCompact hook (`beforeCompact`) that can
 * cancel, add instructions or supply the summary. Every message stays in the store.
 * `test/agent/example-local-model.test.ts` runs this file against the fake provider.
 *
 * Try it: `ollama serve`, then `node examples/agent-local-model.ts http://localhost:11434/v1 qwen2.5:32b`.
 */
import { type Agent, createAgent, openWorkspaceRoot, workspaceTools } from 'chatfold/agent';

/** Seed 003's `on_pre_compact`: log what is about to happen and let it proceed. */
export const compactionLog: string[] = [];

/** Seed 003's `Client(AgentOptions(model, base_url, context=ContextConfig(...)))`. */
export async function createLocalAgent(options: {
  baseURL: string;
  model: string;
  workspace?: string;
  session?: string;
}): Promise<Agent> {
  return createAgent({
    model: {
      provider: 'openai-compatible',
      name: options.model,
      baseURL: options.baseURL,
      maxInputTokens: 32_000, // seed 003's max_context_tokens
      maxOutputTokens: 2_000,
    },
    instructions: 'You are a helpful assistant. Use the file tools to look things up in the workspace.',
    tools:
      options.workspace === undefined
        ? {}
        : workspaceTools(await openWorkspaceRoot(options.workspace), {
            names: ['read_file', 'list_directory', 'search'],
          }),
    history: 'hybrid', // truncation, importance, summarization: chatfold's pipeline runs the cheap steps first
    context: {
      threshold: 28_000 / 32_000, // seed 003's target_tokens: 28,000 of 32,000
      maxMessagesBeforeSummary: 40,
      minRecentMessages: 10, // seed 003's keep_recent
    },
    hooks: {
      beforeCompact(context) {
        compactionLog.push(
          `About to compact: ${context.tokens} tokens, ${context.messageCount} messages (${context.mode})`,
        );
        return { instructions: 'Keep every file path and number the user mentioned.' };
      },
      afterCompact(report) {
        compactionLog.push(`Compacted: ${report.tokensBefore} → ${report.tokensAfter} tokens`);
      },
    },
    ...(options.session === undefined ? {} : { session: options.session }),
  });
}

/** Seed 003's `client.query(prompt)` + `receive_messages()`: the answer text, streamed to `onText`. */
export async function query(
  agent: Agent,
  prompt: string,
  onText: (text: string) => void = () => {},
): Promise<string> {
  let answer = '';
  for await (const event of agent.run(prompt)) {
    if (event.type === 'text-delta') onText(event.text);
    if (event.type === 'compaction-end' && event.report.compacted) onText('\n[history compacted]\n');
    if (event.type === 'error') throw new Error(event.message);
    if (event.type === 'done') answer = event.text;
  }
  return answer;
}

if (import.meta.main) {
  const [baseURL = 'http://localhost:11434/v1', model = 'qwen2.5:32b', workspace] = process.argv.slice(2);
  const agent = await createLocalAgent({ baseURL, model, ...(workspace === undefined ? {} : { workspace }) });
  // Seed 003's success criterion: send 100 messages; the history is compacted, never lost.
  for (let i = 0; i < 100; i++) await query(agent, `Message ${i}`, (text) => process.stdout.write(text));
  const status = await agent.session.status();
  console.log(`\n${status.text}; the model now sees ${status.tokens} tokens`);
  console.log(compactionLog.join('\n'));
}
