import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { TokenizerLoader } from '@lenml/tokenizers';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createHuggingFaceTokenCounter } from '../src/integrations/open-models.ts';
import type { Message } from '../src/messages/types.ts';
import { buildConversation } from '../src/test/build-conversation.ts';

const FOLDER = new URL('./fixtures/hf-tokenizer/qwen3-mini/', import.meta.url).pathname;
const tokenizerJSON = JSON.parse(readFileSync(join(FOLDER, 'tokenizer.json'), 'utf8'));
const tokenizerConfig = JSON.parse(readFileSync(join(FOLDER, 'tokenizer_config.json'), 'utf8'));
const reference = TokenizerLoader.fromPreTrained({ tokenizerJSON, tokenizerConfig });
const encode = (text: string) => reference.encode(text, { add_special_tokens: false }).length;

type Turn = { role: 'system' | 'user' | 'assistant'; content: string };
/** The turns as neutral messages. */
const toMessages = (turns: readonly Turn[]): Message[] =>
  turns.reduce((builder, { role, content }) => builder[role](content), buildConversation()).build();

const scratch = mkdtempSync(join(tmpdir(), 'chatfold-hf-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the fixture folder with changes, for the other places a template can live. */
function folder(name: string, change: (dir: string) => void): string {
  const dir = join(scratch, name);
  cpSync(FOLDER, dir, { recursive: true });
  change(dir);
  return dir;
}

const turns = fc
  .array(fc.oneof(fc.lorem({ maxCount: 20 }), fc.string({ maxLength: 80 })), { minLength: 1, maxLength: 6 })
  .map((texts): Turn[] =>
    // No leading whitespace: the reference renderer (@huggingface/jinja 0.5) strips every
    // whitespace where Qwen 3's template asks for `content.lstrip('\n')` (Python, and so a
    // server, strips only newlines; chatfold counts what Python renders).
    texts.map((text, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `${text.trimStart()}.` })),
  );

describe('createHuggingFaceTokenCounter: a local tokenizer.json + tokenizer_config.json (TOK-3)', () => {
  it("counts what the folder's tokenizer makes of its own chat template", async () => {
    const counter = await createHuggingFaceTokenCounter({ directory: FOLDER });
    const template = new Template(tokenizerConfig.chat_template);
    fc.assert(
      fc.property(
        turns,
        fc.option(fc.lorem({ maxCount: 10 }), { nil: undefined }),
        (conversation, system) => {
          const all: Turn[] =
            system === undefined ? conversation : [{ role: 'system', content: system }, ...conversation];
          const prompt = template.render({ messages: all, add_generation_prompt: true });
          expect(counter.count(toMessages(all)).total).toBe(encode(prompt));
        },
      ),
      { numRuns: 60 },
    );
    expect(counter).toMatchObject({ accuracy: 'exact', tokenizer: `hf:${FOLDER.replace(/\/$/, '')}` });
  });

  it('reads chat_template.jinja (newer snapshots) and takes an explicit chatTemplate over both', async () => {
    const llamaStyle =
      "{{ bos_token }}{% for m in messages %}<|im_start|>{{ m['role'] }}<|im_end|>{{ m['content'] | trim }}<|endoftext|>{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant<|im_end|>{% endif %}";
    const jinjaFile = folder('jinja', (dir) => {
      const { chat_template: _, ...config } = tokenizerConfig;
      writeFileSync(
        join(dir, 'tokenizer_config.json'),
        JSON.stringify({ ...config, bos_token: '<|endoftext|>' }),
      );
      writeFileSync(join(dir, 'chat_template.jinja'), llamaStyle);
    });
    const messages = toMessages([
      { role: 'user', content: '  Hello there  ' },
      { role: 'assistant', content: 'General Kenobi.' },
    ]);
    const rendered = new Template(llamaStyle).render({
      bos_token: '<|endoftext|>',
      add_generation_prompt: true,
      messages: [
        { role: 'user', content: '  Hello there  ' },
        { role: 'assistant', content: 'General Kenobi.' },
      ],
    });
    const fromFile = await createHuggingFaceTokenCounter({ directory: jinjaFile });
    expect(fromFile.count(messages).total).toBe(encode(rendered));
    const explicit = await createHuggingFaceTokenCounter({ directory: FOLDER, chatTemplate: llamaStyle });
    // The fixture's config names no bos_token: the template renders it empty.
    expect(explicit.count(messages).total).toBe(encode(rendered) - 1);
  });

  it('says what is missing or malformed, with a stable code', async () => {
    await expect(
      createHuggingFaceTokenCounter({ directory: join(scratch, 'nowhere') }),
    ).rejects.toMatchObject({
      code: 'E_FILE',
      message: expect.stringMatching(/no tokenizer\.json in .*nowhere/),
    });
    const broken = folder('broken', (dir) => writeFileSync(join(dir, 'tokenizer_config.json'), '{oops'));
    await expect(createHuggingFaceTokenCounter({ directory: broken })).rejects.toMatchObject({
      code: 'E_INVALID_FORMAT',
      message: expect.stringMatching(/tokenizer_config\.json: not valid JSON/),
    });
    const bare = folder('bare', (dir) => {
      const { chat_template: _, ...config } = tokenizerConfig;
      writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(config));
    });
    await expect(createHuggingFaceTokenCounter({ directory: bare })).rejects.toMatchObject({
      code: 'E_TOKENIZER',
      message: expect.stringMatching(/no chat template in .*bare.*pass chatTemplate/),
    });
    await expect(
      createHuggingFaceTokenCounter({
        directory: FOLDER,
        chatTemplate: '{% for m in messages %}{{ m.content }',
      }),
    ).rejects.toMatchObject({ code: 'E_TOKENIZER', message: expect.stringMatching(/does not parse/) });
    const wrongModel = folder('wrong-model', (dir) =>
      writeFileSync(
        join(dir, 'tokenizer.json'),
        JSON.stringify({ ...tokenizerJSON, model: { type: 'Nope' } }),
      ),
    );
    await expect(createHuggingFaceTokenCounter({ directory: wrongModel })).rejects.toMatchObject({
      code: 'E_TOKENIZER',
      message: expect.stringMatching(/tokenizer\.json: the tokenizer does not load/),
    });
  });
});
