import { useEffect, useMemo, useRef } from 'preact/hooks';
import { renderMarkdown } from '../markdown.ts';

/** Adds a "Copy" button to each code block (DOM API and a listener: no HTML, no inline handler). */
function addCopyButtons(root: HTMLElement): void {
  for (const pre of root.querySelectorAll('pre')) {
    if (pre.parentElement?.classList.contains('code-block')) continue;
    const wrapper = document.createElement('div');
    wrapper.className = 'code-block';
    pre.replaceWith(wrapper);
    wrapper.append(pre);
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'code-copy';
    button.textContent = 'Copy';
    button.setAttribute('aria-label', 'Copy code');
    button.addEventListener('click', () => {
      navigator.clipboard.writeText(pre.textContent ?? '').then(
        () => {
          button.textContent = 'Copied';
        },
        () => {
          button.textContent = 'Copy failed';
        },
      );
      setTimeout(() => {
        button.textContent = 'Copy';
      }, 1500);
    });
    wrapper.append(button);
  }
}

/** Wraps each table in a focusable box that scrolls sideways (a keyboard can scroll it too). */
function wrapTables(root: HTMLElement): void {
  for (const table of root.querySelectorAll('table')) {
    if (table.parentElement?.classList.contains('table-scroll')) continue;
    const wrapper = document.createElement('div');
    wrapper.className = 'table-scroll';
    wrapper.tabIndex = 0;
    wrapper.setAttribute('role', 'region');
    wrapper.setAttribute('aria-label', 'Table (scrolls sideways)');
    table.replaceWith(wrapper);
    wrapper.append(table);
  }
}

/**
 * Model or summary text rendered as markdown. The HTML comes from {@link renderMarkdown}, which
 * escapes any HTML in the text and sanitises the result (WEB-8); nothing else is ever set as
 * HTML. Code blocks are highlighted and get a Copy button; tables are styled.
 */
export function MarkdownText({ text, class: className }: { readonly text: string; readonly class?: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = root.current;
    if (element === null) return;
    addCopyButtons(element);
    wrapTables(element);
    if (element.querySelector('pre > code[class*="language-"]') !== null) {
      void import('../highlight.ts').then(({ highlightCode }) => highlightCode(element));
    }
  }, [html]);
  return (
    <div
      ref={root}
      class={className === undefined ? 'markdown' : `markdown ${className}`}
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}
