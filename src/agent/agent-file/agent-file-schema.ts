import { z } from 'zod';
import { POLICY_PRESET_NAMES, type PolicyPresetName } from '../../policy/presets.ts';
import { WORKSPACE_TOOL_NAMES } from '../workspace/workspace-tools.ts';

// The agent file (AG-1, seeds 000 and 004): one zod schema validates YAML files with positions
// (parse-agent-file.ts) and generates the JSON Schema editors complete from (agent-file-json-schema.ts).
// Every `error` text is what follows "expected" in a message such as
// `agents/dev.yaml:12:5 context.maxMessagesBeforeSummary: expected a positive integer, received "thirty"`.

const positiveInteger = (description: string) =>
  z
    .number({ error: 'a positive integer' })
    .int({ error: 'a positive integer' })
    .positive({ error: 'a positive integer' })
    .describe(description);

const share = (description: string) =>
  z
    .number({ error: 'a number greater than 0 and at most 1' })
    .gt(0, { error: 'a number greater than 0 and at most 1' })
    .lte(1, { error: 'a number greater than 0 and at most 1' })
    .describe(description);

const text = (description: string) =>
  z.string({ error: 'a string' }).min(1, { error: 'a non-empty string' }).describe(description);

/** Providers an agent file may name. */
export const AGENT_PROVIDERS = ['openai', 'anthropic', 'google', 'openai-compatible'] as const;

/** History strategies and pipelines an agent file may name (seed 000 `history: summarize | truncate`). */
export const AGENT_HISTORY_STRATEGIES = [
  'hybrid',
  'summarize',
  'truncate',
  'deterministic',
  'importance',
  'supersede',
  'mask',
  'clip',
] as const;

const modelSchema = z
  .strictObject(
    {
      provider: z
        .enum(AGENT_PROVIDERS, { error: `one of ${AGENT_PROVIDERS.join(', ')}` })
        .describe('Who serves the model; openai-compatible covers Ollama, llama.cpp, vLLM, LM Studio'),
      name: text('The provider’s model id, e.g. gpt-4o, claude-sonnet-4-5, qwen2.5:32b'),
      baseURL: z
        .url({ error: 'an http(s) URL', protocol: /^https?$/ })
        .optional()
        .describe('Base URL of an OpenAI-compatible server or a proxy, e.g. http://localhost:11434/v1'),
      maxInputTokens: positiveInteger('Context window; overrides the model registry (seed 000)').optional(),
      maxOutputTokens: positiveInteger('Largest answer, in tokens').optional(),
      temperature: z
        .number({ error: 'a number from 0 to 2' })
        .min(0, { error: 'a number from 0 to 2' })
        .max(2, { error: 'a number from 0 to 2' })
        .optional()
        .describe('Sampling temperature'),
    },
    { error: 'a mapping with provider and name' },
  )
  .describe('The chat model');

const contextSchema = z
  .strictObject(
    {
      policy: z
        .enum(POLICY_PRESET_NAMES as [PolicyPresetName, ...PolicyPresetName[]], {
          error: `one of ${POLICY_PRESET_NAMES.join(', ')}`,
        })
        .optional()
        .describe('The compaction policy to start from; the other keys change it'),
      autoSummarize: z
        .boolean({ error: 'true or false' })
        .optional()
        .describe('Compact automatically when a trigger fires (default true)'),
      maxMessagesBeforeSummary: positiveInteger(
        'N: compact after this many messages since the last summary (default 30, seed 004)',
      ).optional(),
      maxTokensBeforeSummary: positiveInteger(
        'K: compact when the prompt reaches this many tokens (default 128,000, seed 004)',
      ).optional(),
      minRecentMessages: positiveInteger('Newest messages always kept verbatim (default 6)').optional(),
      responseReserve: positiveInteger(
        'Tokens reserved for the answer (default: the model’s max output)',
      ).optional(),
      threshold: share('Share of the budget that triggers a compaction (default 0.8)').optional(),
      target: share('Share of the budget a compaction gets down to (default 0.5)').optional(),
      retentionTokens: positiveInteger(
        'Newest tokens always kept verbatim after a summary (default 1,000)',
      ).optional(),
    },
    { error: 'a mapping of context settings' },
  )
  .describe('When and how the history is compacted (seed 004)');

const instructionsSchema = z
  .union(
    [
      z.string({ error: 'a string' }),
      z.strictObject({
        file: text('Path of a text file with the instructions, relative to the agent file'),
      }),
    ],
    { error: 'a string, or a mapping { file: path }' },
  )
  .describe('System instructions, inline or { file: path }');

/** The schema of an agent file (AG-1). */
export const agentFileSchema = z
  .strictObject(
    {
      $schema: z.string().optional().describe('Path or URL of this JSON Schema (editor completion)'),
      name: z
        .string({ error: 'a name of letters, digits, "_" and "-"' })
        .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, { error: 'a name of letters, digits, "_" and "-"' })
        .optional()
        .describe('Agent name: `chatfold chat NAME` finds the file by it; default: the file name'),
      description: z.string({ error: 'a string' }).optional().describe('One line for `chatfold agents`'),
      model: modelSchema
        .optional()
        .describe('The chat model; without one, `chatfold chat --model provider:name` gives it'),
      instructions: instructionsSchema.optional(),
      tools: z
        .array(z.enum(WORKSPACE_TOOL_NAMES, { error: `one of ${WORKSPACE_TOOL_NAMES.join(', ')}` }), {
          error: `a list of tool names (${WORKSPACE_TOOL_NAMES.join(', ')})`,
        })
        .optional()
        .describe('Built-in workspace tools the agent may call (AG-2)'),
      history: z
        .enum(AGENT_HISTORY_STRATEGIES, { error: `one of ${AGENT_HISTORY_STRATEGIES.join(', ')}` })
        .optional()
        .describe('History strategy or pipeline (seed 000); default hybrid'),
      context: contextSchema.optional(),
      summarizer: z
        .strictObject(
          {
            provider: z.enum(AGENT_PROVIDERS, { error: `one of ${AGENT_PROVIDERS.join(', ')}` }),
            name: text('The summarizer’s model id'),
            baseURL: z.url({ error: 'an http(s) URL', protocol: /^https?$/ }).optional(),
          },
          { error: 'a mapping with provider and name' },
        )
        .optional()
        .describe('A cheaper model for summaries (SUM-5); default: the chat model'),
      maxSteps: positiveInteger('Model calls per turn before the tool loop stops (default 25)').optional(),
      recall: z
        .boolean({ error: 'true or false' })
        .optional()
        .describe(
          'Offer the model the chatfold_recall tool: it reads back, by id or by a search, what compaction folded away (default false)',
        ),
    },
    { error: 'a mapping (an agent file is a YAML mapping of name, model, …)' },
  )
  .describe('A chatfold agent (AG-1)');

/** A validated agent file. */
export type AgentFile = Omit<z.infer<typeof agentFileSchema>, 'name'> & {
  /** The file's `name`, or its file name without `.yaml` when it has none (seed 004's `agents/quick.yaml`). */
  readonly name: string;
};
