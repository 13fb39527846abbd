import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { agentFileJsonSchema } from './agent-file-json-schema.ts';
import { listAgentFiles, loadAgentFile } from './find-agents.ts';
import { type AgentFileProblem, parseAgentFile } from './parse-agent-file.ts';

const examples = new URL('../../../examples/agents/', import.meta.url).pathname;

function problemsOf(text: string, file = 'agents/dev.yaml'): AgentFileProblem[] {
  try {
    parseAgentFile(text, file);
  } catch (error) {
    if (ChatfoldError.hasCode(error, 'E_AGENT_FILE')) return error.details.problems as AgentFileProblem[];
    throw error;
  }
  throw new Error('expected E_AGENT_FILE');
}

const VALID = `name: dev
model:
  provider: openai
  name: gpt-4o
`;

describe('parseAgentFile (AG-1)', () => {
  it('names file:line:col, the key, what was expected and what was found', () => {
    const text = `${VALID}context:\n  autoSummarize: true\n  maxMessagesBeforeSummary: thirty\n`;
    const [problem] = problemsOf(text);
    expect(problem?.message).toBe(
      'agents/dev.yaml:7:29 context.maxMessagesBeforeSummary: expected a positive integer, received "thirty"',
    );
    expect(problem).toMatchObject({ line: 7, column: 29, key: 'context.maxMessagesBeforeSummary' });
  });

  it('reports every problem in file order, with a suggestion for a mistyped key', () => {
    const text = `name: dev\nmodel:\n  provider: ollama\n  name: qwen\ncontext:\n  maxTokensBeforeSumary: 5000\n  target: 2\ntools: [read_file, rm_rf]\n`;
    expect(problemsOf(text).map((problem) => problem.message)).toEqual([
      'agents/dev.yaml:3:13 model.provider: expected one of openai, anthropic, google, openai-compatible, received "ollama"',
      'agents/dev.yaml:6:3 context.maxTokensBeforeSumary: unknown key (did you mean maxTokensBeforeSummary?); expected one of policy, autoSummarize, maxMessagesBeforeSummary, maxTokensBeforeSummary, minRecentMessages, responseReserve, threshold, target, retentionTokens',
      'agents/dev.yaml:7:11 context.target: expected a number greater than 0 and at most 1, received 2',
      'agents/dev.yaml:8:20 tools.1: expected one of read_file, write_file, edit_file, list_directory, search, received "rm_rf"',
    ]);
  });

  it('a missing required key points at the mapping that lacks it', () => {
    expect(problemsOf('name: dev\nmodel:\n  provider: openai\n').map((problem) => problem.message)).toEqual([
      'agents/dev.yaml:3:3 model.name: expected a string, received nothing',
    ]);
    // Without a name the file name is the name (seed 004 scenario 5's agents/quick.yaml has none).
    expect(parseAgentFile('description: no name\n', 'agents/quick.yaml').name).toBe('quick');
    expect(
      problemsOf('description: no name\n', 'agents/my agent.yaml').map((problem) => problem.message),
    ).toEqual([
      'agents/my agent.yaml:1:1 name: expected a name of letters, digits, "_" and "-" (the file name "my agent.yaml" is not one), received nothing',
    ]);
  });

  it('YAML syntax errors and duplicate keys carry their position', () => {
    expect(problemsOf('name: dev\nmodel: [1\n')[0]?.message).toMatch(/^agents\/dev\.yaml:3:1 invalid YAML: /);
    expect(problemsOf(`${VALID}name: again\n`)[0]?.message).toMatch(
      /^agents\/dev\.yaml:5:1 invalid YAML: Map keys must be unique/,
    );
  });

  it('never throws anything but E_AGENT_FILE on arbitrary text (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        try {
          parseAgentFile(text, 'x.yaml');
        } catch (error) {
          expect(ChatfoldError.hasCode(error, 'E_AGENT_FILE')).toBe(true);
          for (const line of (error as Error).message.split('\n')) expect(line).toMatch(/^x\.yaml:\d+:\d+ /);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('example agents and the JSON Schema', () => {
  it('the three examples load, instructions read from their file', async () => {
    const quick = await loadAgentFile(path.join(examples, 'quick_assistant.yaml'));
    expect(quick.file.context).toMatchObject({ maxMessagesBeforeSummary: 15, maxTokensBeforeSummary: 32000 });
    const researcher = await loadAgentFile(path.join(examples, 'researcher.yaml'));
    expect(researcher.file.context).toMatchObject({
      maxMessagesBeforeSummary: 50,
      maxTokensBeforeSummary: 180000,
    });
    const reviewer = await loadAgentFile(path.join(examples, 'code_reviewer.yaml'));
    expect(reviewer.file).toMatchObject({ history: 'summarize', model: { maxInputTokens: 200000 } });
    expect(reviewer.instructions).toMatch(/^You review code\./);
  });

  it('examples/agents/agent-file.schema.json is the schema generated from the validator', () => {
    const shipped = JSON.parse(readFileSync(path.join(examples, 'agent-file.schema.json'), 'utf8'));
    expect(shipped).toEqual(agentFileJsonSchema());
    expect(shipped.properties.context.properties.maxMessagesBeforeSummary).toMatchObject({ type: 'integer' });
  });
});

describe('finding agents (AG-1)', () => {
  it('finds by file name or name field, project folder before the user folder; lists invalid ones too', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'chatfold-agents-'));
    const config = path.join(cwd, 'config');
    mkdirSync(path.join(cwd, '.chatfold', 'agents'), { recursive: true });
    mkdirSync(path.join(config, 'chatfold', 'agents'), { recursive: true });
    writeFileSync(path.join(cwd, '.chatfold', 'agents', 'dev.yaml'), `${VALID}description: project\n`);
    writeFileSync(path.join(config, 'chatfold', 'agents', 'dev.yaml'), `${VALID}description: user\n`);
    writeFileSync(
      path.join(config, 'chatfold', 'agents', 'other.yml'),
      VALID.replace('name: dev', 'name: helper'),
    );
    writeFileSync(path.join(config, 'chatfold', 'agents', 'broken.yaml'), 'name: [\n');
    const options = { cwd, env: { XDG_CONFIG_HOME: config } };
    expect((await loadAgentFile('dev', options)).file.description).toBe('project');
    expect((await loadAgentFile('helper', options)).path).toMatch(/other\.yml$/);
    const listed = await listAgentFiles(options);
    expect(listed.map((entry) => [entry.name, entry.source, entry.error === undefined])).toEqual([
      ['dev', 'project', true],
      ['broken', 'user', false],
      ['dev', 'user', true],
      ['helper', 'user', true],
    ]);
    await expect(loadAgentFile('nobody', options)).rejects.toThrow(
      /no agent named "nobody" in .*found: dev, broken, dev, helper/,
    );
  });
});
