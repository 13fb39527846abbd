import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { AGENT_FILE_ALIASES } from './agent-file-aliases.ts';
import { type AgentFileProblem, parseAgentFile } from './parse-agent-file.ts';

const MODEL = 'model:\n  provider: openai-compatible\n  name: qwen2.5:32b\n';

function problemsOf(text: string): string[] {
  try {
    parseAgentFile(text, 'agents/dev.yaml');
  } catch (error) {
    if (ChatfoldError.hasCode(error, 'E_AGENT_FILE')) {
      return (error.details.problems as AgentFileProblem[]).map((problem) => problem.message);
    }
    throw error;
  }
  throw new Error('expected E_AGENT_FILE');
}

/** A YAML file with one key set at a dotted path (sections nested, `model` always present). */
function fileWith(path: readonly string[], value: string): string {
  const [section, key] = path;
  if (key === undefined) return `name: dev\n${MODEL}${section}: ${value}\n`;
  if (section === 'model') return `name: dev\n${MODEL}  ${key}: ${value}\n`;
  return `name: dev\n${MODEL}${section}:\n  ${key}: ${value}\n`;
}

const valueFor = (key: readonly string[]): string =>
  key.at(-1) === 'autoSummarize'
    ? 'false'
    : key.at(-1) === 'policy'
      ? 'truncation'
      : key.at(-1) === 'baseURL'
        ? 'http://localhost:1234/v1'
        : '4096';

describe('agent file aliases: the documents’ spellings (AG-1, seeds 000, 003, 004)', () => {
  it('property: every alias loads exactly like the key it stands for', () => {
    fc.assert(
      fc.property(fc.constantFrom(...AGENT_FILE_ALIASES), ({ alias, key, values }) => {
        const value = valueFor(key);
        expect(parseAgentFile(fileWith(alias, value), 'a.yaml')).toEqual(
          parseAgentFile(fileWith(key, values?.[value] ?? value), 'a.yaml'),
        );
      }),
      { numRuns: AGENT_FILE_ALIASES.length * 3 },
    );
  });

  it('a value error under an alias names the key as written, at its position', () => {
    expect(problemsOf(`name: dev\n${MODEL}context:\n  max_messages_before_summary: thirty\n`)).toEqual([
      'agents/dev.yaml:6:32 context.max_messages_before_summary: expected a positive integer, received "thirty"',
    ]);
  });

  it('a key given twice (its name and an alias, or two aliases) is refused', () => {
    expect(
      problemsOf(`name: dev\n${MODEL}context:\n  maxTokensBeforeSummary: 5000\n  target_tokens: 4000\n`),
    ).toEqual([
      'agents/dev.yaml:7:3 context.target_tokens: stands for context.maxTokensBeforeSummary, which is also given; keep one of the two',
    ]);
    expect(
      problemsOf(
        `name: dev\nmodel:\n  provider: openai\n  name: gpt-4o\n  max_input_tokens: 9000\ncontext:\n  max_context_tokens: 8000\n`,
      ),
    ).toEqual([
      'agents/dev.yaml:7:3 context.max_context_tokens: stands for model.maxInputTokens, which is also given; keep one of the two',
    ]);
  });

  it('seed 003’s window needs a model section to go to', () => {
    expect(problemsOf('name: dev\ncontext:\n  max_context_tokens: 32000\n')).toEqual([
      'agents/dev.yaml:3:3 context.max_context_tokens: stands for model.maxInputTokens, but the file has no model section',
    ]);
  });

  it('real typos still get a did-you-mean, in the spelling they were close to', () => {
    expect(problemsOf(`name: dev\n${MODEL}context:\n  max_mesages_before_summary: 10\n`)[0]).toMatch(
      /^agents\/dev\.yaml:6:3 context\.max_mesages_before_summary: unknown key \(did you mean max_messages_before_summary\?\); expected one of /,
    );
    expect(problemsOf(`name: dev\n${MODEL}context:\n  maxMessagesBeforeSumary: 10\n`)[0]).toMatch(
      /unknown key \(did you mean maxMessagesBeforeSummary\?\)/,
    );
    expect(problemsOf(`name: dev\n${MODEL}context:\n  colour: blue\n`)[0]).toMatch(
      /colour: unknown key; expected one of/,
    );
  });

  it('seed 003’s strategy names select its three policies', () => {
    const policyOf = (name: string) =>
      parseAgentFile(`name: dev\n${MODEL}context:\n  strategy: ${name}\n`, 'a.yaml').context?.policy;
    expect(['truncation', 'importance', 'summarization'].map(policyOf)).toEqual([
      'local-truncation',
      'local-importance',
      'local-summarization',
    ]);
    expect(problemsOf(`name: dev\n${MODEL}context:\n  strategy: newest\n`)[0]).toMatch(
      /^agents\/dev\.yaml:6:13 context\.strategy: expected one of default, .*received "newest"$/,
    );
  });
});
