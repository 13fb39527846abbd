/**
 * Writes `data/encoding/<name>.bpe`, the BPE ranks chatfold counts with (TOK-2, TOK-8), in the
 * compact form `src/tokens/bpe-ranks.ts` reads in a few tens of milliseconds:
 *
 * - `o200k_base`, `cl100k_base`: OpenAI's rank files as the `tiktoken` dev dependency ships
 *   them (`tiktoken/encoders/<name>.json`, MIT);
 * - `claude`: Anthropic's `claude.json` from `@anthropic-ai/tokenizer` 0.0.4 (the same ranks,
 *   rank for rank, that `ai-tokenizer` 1.0.6 ships), given by path because that package is not
 *   a dependency: `node scripts/build-encodings.ts --claude path/to/claude.json`. Without the
 *   flag the committed `claude.bpe` is left alone.
 *
 * All three sources use tiktoken's text form: lines of `<first token> <first rank> <base64>…`.
 * Review the diff (the sizes and SHA-256 in data/encoding/README.md), commit.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { encodeBpeRanks } from '../src/tokens/bpe-ranks.ts';

const require = createRequire(import.meta.url);
const out = new URL('../data/encoding/', import.meta.url);

interface RankSource {
  readonly bpe_ranks: string;
}

/** tiktoken's text form → the token bytes of each rank. */
function parseRanks(source: RankSource): Map<number, Uint8Array> {
  const ranks = new Map<number, Uint8Array>();
  for (const line of source.bpe_ranks.split('\n')) {
    if (line === '') continue;
    const [, first = '', ...tokens] = line.split(' ');
    const offset = Number.parseInt(first, 10);
    tokens.forEach((token, index) => {
      ranks.set(offset + index, Buffer.from(token, 'base64'));
    });
  }
  return ranks;
}

function write(name: string, source: RankSource): void {
  const file = encodeBpeRanks(parseRanks(source));
  writeFileSync(new URL(`${name}.bpe`, out), file);
  const sha = createHash('sha256').update(file).digest('hex');
  console.log(`${name}.bpe  ${file.byteLength.toLocaleString('en-US')} bytes  sha256 ${sha}`);
}

const { values } = parseArgs({ options: { claude: { type: 'string' } } });
for (const name of ['o200k_base', 'cl100k_base'])
  write(name, require(`tiktoken/encoders/${name}.json`) as RankSource);
if (values.claude !== undefined)
  write('claude', JSON.parse(readFileSync(values.claude, 'utf8')) as RankSource);
