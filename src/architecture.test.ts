// The house (Engine 2): a pure core whose arrows point inward, with no cycle between its
// folders. Read from the import statements of the sources, so a change that adds a cycle or
// pulls I/O into the core fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = new URL('.', import.meta.url).pathname;
const CORE = [
  'errors',
  'options',
  'messages',
  'tokens',
  'models',
  'policy',
  'projection',
  'summarize',
  'strategies',
  'compaction',
  'evaluation',
];
const OUTER = ['session', 'stores', 'integrations', 'cli', 'web', 'agent', 'fake-provider', 'background'];

/** folder → folders its (non-test) files import. */
function folderGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const entry of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
    if (!/\.tsx?$/.test(entry) || /\.test(-d)?\.tsx?$/.test(entry) || entry.includes('node_modules'))
      continue;
    const folder = entry.split('/')[0] as string;
    if (!entry.includes('/')) continue;
    const text = readFileSync(join(src, entry), 'utf8');
    for (const [, spec] of text.matchAll(/from '(\.[^']+)'/g)) {
      const target = relative(src, normalize(join(src, dirname(entry), spec as string))).split(
        '/',
      )[0] as string;
      if (target === folder || target.endsWith('.ts')) continue;
      const edges = graph.get(folder) ?? new Map<string, string>();
      edges.set(target, entry);
      graph.set(folder, edges);
    }
  }
  return graph;
}

describe('architecture', () => {
  const graph = folderGraph();

  it('the core imports nothing from sessions, stores, integrations or front ends', () => {
    const outward = CORE.flatMap((folder) =>
      [...(graph.get(folder) ?? new Map<string, string>())]
        .filter(([target]) => OUTER.includes(target))
        .map(([target, file]) => `${file} → ${target}`),
    );
    expect(outward).toEqual([]);
  });

  it('no two core folders import each other, and the core has no cycle', () => {
    const visiting = new Set<string>();
    const done = new Set<string>();
    const cycles: string[] = [];
    const visit = (folder: string, path: string[]): void => {
      if (done.has(folder)) return;
      if (visiting.has(folder)) {
        cycles.push([...path.slice(path.indexOf(folder)), folder].join(' → '));
        return;
      }
      visiting.add(folder);
      for (const target of (graph.get(folder) ?? new Map()).keys()) {
        if (CORE.includes(target)) visit(target, [...path, folder]);
      }
      visiting.delete(folder);
      done.add(folder);
    };
    for (const folder of CORE) visit(folder, []);
    expect(cycles).toEqual([]);
  });
});
