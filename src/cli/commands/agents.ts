import type { Command } from 'commander';
import { agentFileJsonSchema } from '../../agent/agent-file/agent-file-json-schema.ts';
import { agentFolders, listAgentFiles } from '../../agent/agent-file/find-agents.ts';
import { print } from '../options.ts';

interface AgentsCliOptions {
  json?: boolean;
  schema?: boolean;
}

/**
 * `chatfold agents [--json] [--schema]` (AG-1): the agent files in `./.chatfold/agents/` and the
 * user config folder, valid or not (an invalid one shows its first problem, exit code 1);
 * `--schema` prints the JSON Schema of agent files.
 */
export function registerAgents(program: Command): void {
  program
    .command('agents')
    .description('list the agent files in ./.chatfold/agents/ and the user config folder')
    .option('--json', 'machine-readable output')
    .option('--schema', 'print the JSON Schema of agent files (editor completion)')
    .action(async (options: AgentsCliOptions) => {
      if (options.schema === true) {
        print(JSON.stringify(agentFileJsonSchema(), null, 2));
        return;
      }
      const entries = await listAgentFiles();
      const invalid = entries.filter((entry) => entry.error !== undefined);
      if (options.json === true) {
        print(
          JSON.stringify(
            entries.map((entry) => ({
              name: entry.name,
              path: entry.path,
              source: entry.source,
              ...(entry.description === undefined ? {} : { description: entry.description }),
              ...(entry.file?.model === undefined
                ? {}
                : { model: `${entry.file.model.provider}:${entry.file.model.name}` }),
              ...(entry.error === undefined ? {} : { error: entry.error.message }),
            })),
            null,
            2,
          ),
        );
      } else if (entries.length === 0) {
        print(
          `No agent files in ${agentFolders()
            .map((folder) => folder.folder)
            .join(' or ')}.`,
        );
      } else {
        const width = Math.max(...entries.map((entry) => entry.name.length));
        for (const entry of entries) {
          const model =
            entry.file === undefined
              ? ''
              : entry.file.model === undefined
                ? '(model from --model)'
                : `${entry.file.model.provider}:${entry.file.model.name}`;
          const about =
            entry.error === undefined
              ? (entry.description ?? '')
              : `INVALID: ${entry.error.message.split('\n')[0]}`;
          print(`${entry.name.padEnd(width)}  ${entry.source.padEnd(7)}  ${model.padEnd(28)}  ${about}`);
          print(`${' '.repeat(width)}  ${entry.path}`);
        }
      }
      if (invalid.length > 0) process.exitCode = 1;
    });
}
