import { useMemo } from 'preact/hooks';
import { renderMarkdown } from '../markdown.ts';

/**
 * Model or summary text rendered as markdown. The HTML comes from {@link renderMarkdown}, which
 * escapes any HTML in the text and sanitises the result (WEB-8); nothing else is ever set as HTML.
 */
export function MarkdownText({ text, class: className }: { readonly text: string; readonly class?: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return (
    <div
      class={className === undefined ? 'markdown' : `markdown ${className}`}
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}
