import { describe, expect, it } from 'vitest';
import type { JsonValue, Message } from '../messages/types.ts';
import { summaryRecordOf } from '../strategies/summarize.ts';
import { emptyFactLists } from '../summarize/ledger.ts';
import { caughtError } from '../test/caught-error.ts';
import {
  chatfoldMetadata,
  createSyntheticMessage,
  parseChatfoldMetadata,
  transformMessage,
} from './chatfold-metadata.ts';

// Issue 22 §4: `metadata.chatfold` records have a schema and a version.

const message: Message = {
  id: 'm1',
  role: 'tool',
  parts: [{ type: 'tool-result', callId: 'c1', content: [{ type: 'text', text: 'x'.repeat(100) }] }],
  createdAt: '2026-01-01T00:00:00.000Z',
};

const withRecord = (chatfold: JsonValue): Message => ({ ...message, metadata: { chatfold } });

const summaryRecord = {
  transform: 'summary',
  text: 'They read a.ts.',
  ledger: { ...emptyFactLists(), filesRead: ['a.ts'] },
  covers: { firstId: 'm0', lastId: 'm9', count: 10 },
  source: 'llm',
  model: 'gpt-4o-mini',
};

function expectUnsupported(run: () => unknown): void {
  const error = caughtError(run);
  expect(error.code).toBe('E_UNSUPPORTED_VERSION');
  expect(error.details).toMatchObject({ record: 'metadata.chatfold record', version: 2, supported: 1 });
}

describe('metadata.chatfold records', () => {
  it('are written with version 1 and read back through JSON by their schema', () => {
    const masked = transformMessage(message, [], { transform: 'masked' });
    const marker = createSyntheticMessage({
      role: 'user',
      text: '[omitted]',
      key: 'k',
      createdAt: message.createdAt,
      record: { transform: 'marker', omitted: 3, firstId: 'a', lastId: 'b' },
    });
    for (const written of [masked, marker]) {
      const stored = JSON.parse(JSON.stringify(written)) as Message;
      expect(stored.metadata?.chatfold).toMatchObject({ version: 1 });
      expect(chatfoldMetadata(stored)).toEqual(written.metadata?.chatfold);
      expect(parseChatfoldMetadata(stored.metadata?.chatfold)).toEqual(written.metadata?.chatfold);
    }
  });

  it('read records written before versions existed as version 1', () => {
    const old = withRecord({ transform: 'clipped', originalTokens: 120 });
    expect(chatfoldMetadata(old)?.transform).toBe('clipped');
    expect(parseChatfoldMetadata(old.metadata?.chatfold)).toEqual({
      version: 1,
      transform: 'clipped',
      originalTokens: 120,
    });
    expect(summaryRecordOf(withRecord(summaryRecord))).toEqual({
      text: summaryRecord.text,
      ledger: summaryRecord.ledger,
      covers: summaryRecord.covers,
      source: 'llm',
      model: 'gpt-4o-mini',
      messageId: 'm1',
    });
  });

  it('a summary record round-trips with a version, and keeps fields a newer writer added', () => {
    const record = { version: 1, ...summaryRecord, files: [{ path: 'a.ts', messageId: 'm3', content: 'x' }] };
    expect(parseChatfoldMetadata(JSON.parse(JSON.stringify(record)))).toEqual(record);
    expect(summaryRecordOf(withRecord(record))?.covers).toEqual(summaryRecord.covers);
  });

  it('refuse a record of a newer version with E_UNSUPPORTED_VERSION naming it', () => {
    const newer = withRecord({ version: 2, transform: 'masked' });
    expectUnsupported(() => chatfoldMetadata(newer));
    expectUnsupported(() => parseChatfoldMetadata(newer.metadata?.chatfold));
    expectUnsupported(() => summaryRecordOf(withRecord({ ...summaryRecord, version: 2 })));
  });

  it('are not read from other keys or malformed values', () => {
    expect(chatfoldMetadata(withRecord({ synthetic: true }))).toBeUndefined();
    expect(chatfoldMetadata(withRecord('summary'))).toBeUndefined();
    expect(chatfoldMetadata(withRecord({ transform: 'teleported' }))).toBeUndefined();
    expect(chatfoldMetadata(withRecord({ version: 'x', transform: 'masked' }))).toBeUndefined();
    expect(parseChatfoldMetadata({ transform: 'marker', omitted: -1 })).toBeUndefined();
    // A summary record without its text is no summary to merge.
    expect(summaryRecordOf(withRecord({ transform: 'summary', source: 'llm' }))).toBeUndefined();
  });
});
