import { loadModelRegistry } from '../models/load-model-registry.ts';
import { bundledModelRegistry, type ModelRegistry } from '../models/registry.ts';
import { readTextFile } from './read-text-file.ts';

/**
 * The registry the CLI searches: the bundled one, extended and overridden by `--registry FILE`
 * when given (MOD-1 "updatable from a file").
 */
export async function readModelRegistry(path: string | undefined): Promise<ModelRegistry> {
  if (path === undefined) return bundledModelRegistry();
  return loadModelRegistry(await readTextFile(path), { base: bundledModelRegistry(), source: path });
}
