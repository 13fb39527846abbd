// The documentation site: README.md and docs/*.md rendered to static HTML in site/ (deployable
// as it is: plain files, relative links, no script). Links between pages — relative ones in
// docs/, and the README's absolute GitHub links to docs/ — become links between the HTML pages;
// a link to a page or an anchor that does not exist fails the build, so `npm test` (which runs
// it) catches a broken link before a reader does.
//   npm run docs:build   (node scripts/build-docs.ts [--out DIR])
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import MarkdownIt from 'markdown-it';

const root = new URL('../', import.meta.url);
const outIndex = process.argv.indexOf('--out');
const out = new URL(outIndex > 0 ? `${process.argv[outIndex + 1]}/` : 'site/', root);
const GITHUB = 'https://github.com/chatfold/chatfold/blob/main/';

/** Source markdown → page file: README.md is the home page, docs/x.md is x.html. */
const pageOf = (source: string): string =>
  source === 'README.md' ? 'index.html' : `${source.replace(/^docs\//, '').replace(/\.md$/, '')}.html`;

const sources = [
  'README.md',
  ...readdirSync(new URL('docs/', root))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');

const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });
const problems: string[] = [];
const anchors = new Map<string, Set<string>>();
const links: { from: string; page: string; anchor: string | undefined }[] = [];

/** Rewrites a link target of `source` to the site, recording it for the check. */
function siteLink(source: string, href: string): string {
  const [path = '', anchor] = href.split('#') as [string, string | undefined];
  let target: string | undefined;
  if (path === '') target = source;
  else if (path.startsWith(GITHUB) && /^docs\/[\w-]+\.md$/.test(path.slice(GITHUB.length)))
    target = path.slice(GITHUB.length);
  else if (path.startsWith(GITHUB) && path.slice(GITHUB.length) === 'README.md') target = 'README.md';
  else if (/^[\w-]+\.md$/.test(path) && source.startsWith('docs/')) target = `docs/${path}`;
  else if (path === '../README.md' && source.startsWith('docs/')) target = 'README.md';
  else if (/^(https?:|mailto:)/.test(path) || /\.(png|svg|jpe?g)$/.test(path)) return href;
  else {
    problems.push(`${source}: link ${href} leads outside the site; use an absolute URL`);
    return href;
  }
  links.push({ from: source, page: target, anchor });
  return `${pageOf(target)}${anchor === undefined ? '' : `#${anchor}`}`;
}

function render(source: string): { title: string; body: string } {
  const tokens = markdown.parse(readFileSync(new URL(source, root), 'utf8'), {});
  const seen = new Set<string>();
  let title = source;
  tokens.forEach((token, i) => {
    if (token.type === 'heading_open') {
      const text = tokens[i + 1]?.content ?? '';
      if (token.tag === 'h1' && title === source) title = text;
      let id = slug(text);
      for (let n = 1; seen.has(id); n++) id = `${slug(text)}-${n}`;
      seen.add(id);
      token.attrSet('id', id);
    }
    for (const child of token.children ?? []) {
      if (child.type === 'link_open')
        child.attrSet('href', siteLink(source, String(child.attrGet('href') ?? '')));
    }
  });
  anchors.set(source, seen);
  return { title, body: markdown.renderer.render(tokens, markdown.options, {}) };
}

const STYLE = `body{font:16px/1.55 system-ui,sans-serif;margin:0;display:flex;color:#1b1b1b}
nav{width:15rem;flex:none;padding:1rem;border-right:1px solid #ddd;min-height:100vh;box-sizing:border-box}
nav a{display:block;padding:.15rem 0;color:#0b57d0;text-decoration:none}nav a[aria-current]{font-weight:600;color:#1b1b1b}
main{max-width:52rem;padding:1rem 2rem;overflow-x:auto}pre{background:#f5f5f5;padding:.75rem;overflow-x:auto}
code{font:14px/1.4 ui-monospace,monospace}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.3rem .5rem;vertical-align:top}
img{max-width:100%}`;

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

const pages = sources.map((source) => ({ source, ...render(source) }));
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const page of pages) {
  const nav = pages
    .map(
      (other) =>
        `<a href="${pageOf(other.source)}"${other.source === page.source ? ' aria-current="page"' : ''}>${escapeHtml(other.source === 'README.md' ? 'chatfold' : other.title)}</a>`,
    )
    .join('\n');
  writeFileSync(
    new URL(pageOf(page.source), out),
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">\n<title>${escapeHtml(page.title)} · chatfold</title><style>${STYLE}</style></head>\n<body><nav aria-label="Documentation">${nav}</nav><main>${page.body}</main></body></html>\n`,
  );
}
for (const name of readdirSync(new URL('docs/', root)))
  if (/\.(png|svg|jpe?g)$/.test(name)) copyFileSync(new URL(`docs/${name}`, root), new URL(name, out));

for (const { from, page, anchor } of links) {
  const known = anchors.get(page);
  if (known === undefined) problems.push(`${from}: link to ${page}, which is not a page of the site`);
  else if (anchor !== undefined && !known.has(anchor))
    problems.push(`${from}: link to ${page}#${anchor}, no such heading`);
}
if (problems.length > 0) {
  process.stderr.write(
    `docs:build: ${problems.length} broken link(s):\n${problems.map((p) => `  ${p}\n`).join('')}`,
  );
  process.exit(1);
}
process.stdout.write(`docs:build: ${pages.length} pages in ${out.pathname}\n`);
