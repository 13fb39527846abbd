import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('./index.ts', import.meta.url));

/** A resolve hook that makes every provider SDK look uninstalled. */
const withoutSdks = `
export async function resolve(specifier, context, next) {
  if (/^(ai|@ai-sdk\\/[^/]+|openai|@anthropic-ai\\/sdk|@google\\/genai)(\\/|$)/.test(specifier)) {
    throw Object.assign(new Error('Cannot find package ' + specifier), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return next(specifier, context);
}`;
const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(withoutSdks)}`)});`;

/** Runs a module in a fresh Node process where no provider SDK can be imported. */
function runWithoutSdks(code: string): Promise<{ stdout: string; stderr: string; failed: boolean }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '-e', code],
      (error, stdout, stderr) => resolve({ stdout, stderr, failed: error !== null }),
    );
  });
}

describe('chatfold/test entry', () => {
  it('loads and runs without ai, @ai-sdk/provider or any provider SDK installed (optional peers)', async () => {
    const { stdout, stderr, failed } = await runWithoutSdks(`
      const test = await import(${JSON.stringify(entry)});
      const model = test.createMockLanguageModel('hi');
      const result = await model.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] });
      const summarizer = test.createMockSummarizer('a summary');
      const store = test.createMockStore();
      await store.append('s', []);
      const overflow = test.createMockLanguageModel({ overflow: { limit: 1, actual: 2 } });
      const error = await overflow.doGenerate({ prompt: [] }).then(() => undefined, (e) => e);
      console.log(JSON.stringify({
        text: result.content[0].text,
        messages: model.calls[0].messages.length,
        summarizer: typeof summarizer,
        appends: store.calls.append.length,
        overflow: error.code,
      }));
    `);
    expect(stderr).toBe('');
    expect(failed).toBe(false);
    expect(JSON.parse(stdout)).toEqual({
      text: 'hi',
      messages: 1,
      summarizer: 'function',
      appends: 1,
      // Only an overflow answer needs @ai-sdk/provider (for the real APICallError class).
      overflow: 'E_MISSING_DEPENDENCY',
    });
  });
});
