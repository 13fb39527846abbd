import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runStoreConformance } from '../../../test/stores/conformance.ts';
import { jsonlStore } from './jsonl-store.ts';

runStoreConformance('jsonl', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chatfold-jsonl-'));
  return {
    store: jsonlStore(dir),
    reopen: async () => jsonlStore(dir),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});
