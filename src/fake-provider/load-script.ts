import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { type FakeScript, parseFakeScript } from './script.ts';

/**
 * Reads a fake-provider script file (`chatfold fake-provider --script FILE`): JSON, or YAML
 * for `.yaml` / `.yml` (YAML is a superset of JSON, so either parser reads a JSON file).
 *
 * @param path - The file.
 * @returns The validated script.
 * @throws ChatfoldError `E_FILE` when the file cannot be read; `E_INVALID_OPTIONS` naming the
 *   file and the line and column of a syntax error, or the path of an invalid field.
 * @example
 * const server = await startFakeProvider({ script: await loadFakeScript('test/fixtures/tool-loop.yaml') });
 */
export async function loadFakeScript(path: string): Promise<FakeScript> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code ?? (cause as Error).message;
    throw new ChatfoldError('E_FILE', `cannot read ${path}: ${reason}`, { path }, { cause });
  }
  if (!/\.ya?ml$/i.test(path)) {
    try {
      return parseFakeScript(JSON.parse(text), { source: path });
    } catch (cause) {
      if (ChatfoldError.isInstance(cause)) throw cause;
      throw new ChatfoldError(
        'E_INVALID_OPTIONS',
        `${path}: not valid JSON (${(cause as Error).message}); name the file .yaml to write YAML`,
        { source: path },
        { cause },
      );
    }
  }
  const document = parseDocument(text, { prettyErrors: true });
  const [error] = document.errors;
  if (error !== undefined) {
    const position = error.linePos?.[0];
    const at = position === undefined ? '' : `:${position.line}:${position.col}`;
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `${path}${at}: not valid YAML (${error.message.split('\n')[0]})`,
      { source: path, ...(position === undefined ? {} : { line: position.line, column: position.col }) },
    );
  }
  return parseFakeScript(document.toJS(), { source: path });
}
