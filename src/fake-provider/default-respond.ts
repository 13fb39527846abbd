import type { Message } from '../messages/types.ts';
import type { FakeAnswer, FakeChatRequest } from './chat-turn.ts';

const textOf = (message: Message): string =>
  message.parts
    .map((part) =>
      part.type === 'text'
        ? part.text
        : part.type === 'tool-result'
          ? part.content.map((content) => (content.type === 'text' ? content.text : '')).join('')
          : '',
    )
    .join('');

/**
 * Marks of chatfold's summarization prompt (src/summarize/prompts.ts, SUM-2): the transcript is
 * wrapped in `<new-messages>` and the model is told to write sections and "Output only the
 * summary". Two independent marks, so a user pasting one tag is not mistaken for a summarizer.
 */
const SUMMARY_MARKS = [/<new-messages>[\s\S]*<\/new-messages>/, /output only the summary/i] as const;

/** True when a request is chatfold's own summarization prompt. */
export function isSummaryRequest(messages: readonly Message[]): boolean {
  const text = messages.map(textOf).join('\n');
  return SUMMARY_MARKS.every((mark) => mark.test(text));
}

const DEFAULT_SECTIONS = [
  '## Context and goal',
  '## Key points',
  '## Decisions',
  '## Open questions and next steps',
];

/**
 * A well-formed summary with the sections the prompt asks for (`## …` lines after the
 * transcript), each with one line that names where it came from, so tests can spot it.
 */
export function cannedSummary(messages: readonly Message[]): string {
  const prompt = messages.map(textOf).join('\n');
  const instructions = prompt.slice(prompt.lastIndexOf('</new-messages>') + 1);
  const sections = instructions.match(/^## .+$/gm) ?? DEFAULT_SECTIONS;
  const goal = /<goal>\n?([\s\S]*?)\n?<\/goal>/.exec(prompt)?.[1]?.trim();
  const transcript = /<new-messages>([\s\S]*)<\/new-messages>/.exec(prompt)?.[1] ?? '';
  return sections
    .map((heading, index) => {
      const line =
        index === 0
          ? `Fake summary of ${transcript.length} transcript characters${goal ? `; goal: ${goal}` : ''}.`
          : '- (fake provider: nothing to report)';
      return `${heading}\n${line}`;
    })
    .join('\n\n');
}

/**
 * The fake model's default answer: a canned structured summary when the request is chatfold's
 * summarization prompt, otherwise an echo of the last user message (or of the last tool
 * result, so tool round trips end with text).
 */
export function defaultRespond(request: FakeChatRequest): FakeAnswer {
  if (isSummaryRequest(request.messages)) return { text: cannedSummary(request.messages) };
  const last = request.messages.findLast((message) => message.role === 'user' || message.role === 'tool');
  return { text: last === undefined ? '' : textOf(last) };
}
