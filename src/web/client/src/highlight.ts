// Code highlighting, loaded on demand (its own chunk: a page without code never fetches it).
// highlight.js escapes the code and wraps tokens in class-only spans; no inline style (WEB-8).
import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

for (const [name, language] of Object.entries({
  bash,
  css,
  go,
  java,
  javascript,
  json,
  python,
  rust,
  sql,
  typescript,
  xml,
  yaml,
})) {
  hljs.registerLanguage(name, language);
}

/** Highlights every `pre > code.language-*` under `root` whose language is known. */
export function highlightCode(root: HTMLElement): void {
  for (const code of root.querySelectorAll<HTMLElement>('pre > code[class*="language-"]')) {
    if (code.dataset.highlighted === 'yes') continue;
    const language = /language-([\w-]+)/.exec(code.className)?.[1]?.toLowerCase();
    if (language === undefined || hljs.getLanguage(language) === undefined) continue;
    // Escaped by highlight.js already; sanitised again like every HTML the app sets.
    code.innerHTML = DOMPurify.sanitize(
      hljs.highlight(code.textContent ?? '', { language, ignoreIllegals: true }).value,
    );
    code.classList.add('hljs');
    code.dataset.highlighted = 'yes';
  }
}
