// Markdown rendered safely (WEB-8): markdown-it escapes any HTML in the source (html: false)
// and refuses javascript:/vbscript:/data: links; images are not rendered (no remote fetches);
// DOMPurify then sanitises the output as a second line of defence before it reaches the DOM.
// Code blocks keep their `language-*` class; highlight.ts colours them after rendering.
import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';

const markdown = new MarkdownIt({ html: false, linkify: true, breaks: true });
markdown.disable(['image']);

let hooked = false;

/** Renders markdown text to sanitised HTML. */
export function renderMarkdown(text: string): string {
  if (!hooked) {
    DOMPurify.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A') {
        node.setAttribute('target', '_blank');
        node.setAttribute('rel', 'noopener noreferrer nofollow');
      }
    });
    hooked = true;
  }
  return DOMPurify.sanitize(markdown.render(text), {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['img', 'style', 'form', 'input', 'button', 'iframe', 'svg', 'math'],
    FORBID_ATTR: ['style'],
  });
}
