// Restoring goldset JSONL reads the file line by line inside its transaction (never whole): records
// that cross the reader's 1 MB chunks, multi-byte characters split between chunks, CRLF line ends
// and blank lines must all come back as written, and a bad record at the very end undoes everything.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestContext, type TestContext } from '../helpers.ts';
import type { DB } from '../../server/db/connection.ts';
import type { AppContext } from '../../server/app-context.ts';
import { GoldsetFormatError, restoreGoldsetJsonl, writeGoldsetJsonl } from '../../server/importexport/goldset-jsonl.ts';

let dir: string;
let db: DB;
let ctx: AppContext;
let env: TestContext;

beforeEach(() => {
  ({ dir, db, ctx } = env = openTestContext('goldset-restore-'));
});
afterEach(() => env.close());

/** A dataset of 1,500 samples with answers and one expert's labels, exported: about 1.8 MB of mostly Chinese text (more than one 1 MB read). */
async function exported(): Promise<{ file: string; text: string }> {
  const datasetId = ctx.datasets.create(null, { name: 'hr', description: '', language: 'zh', domain: '' }).id;
  const annotatorId = (await ctx.users.createUser(null, { email: 'li@example.com', name: 'li', role: 'expert', password: 'a long enough password' })).id;
  const rows = Array.from({ length: 1500 }, (_, i) => JSON.stringify({
    user_input: `第 ${i} 题：张伟是哪个部门的？${'新员工入职须知。'.repeat(i % 7)}`, reference: `张伟在研发部（${i}）。`,
    response: `张伟是研发部的工程师，编号 ${i}。`, retrieved_contexts: ['张伟 研发部', `通讯录第 ${i} 页`], 'human.correct': i % 4 ? 'yes' : 'no',
  }));
  const source = path.join(dir, 'source.jsonl');
  fs.writeFileSync(source, rows.join('\n'));
  const result = await ctx.imports.importFile(null, datasetId, source, { format: 'jsonl', annotatorId });
  if (!result.ok) throw new Error(JSON.stringify(result));
  let text = '';
  writeGoldsetJsonl(db, datasetId, (chunk) => { text += chunk; });
  const file = path.join(dir, 'hr.goldset.jsonl');
  fs.writeFileSync(file, text);
  return { file, text };
}

const reexport = (datasetId: number): string[] => {
  let text = '';
  writeGoldsetJsonl(db, datasetId, (chunk) => { text += chunk; });
  return text.trim().split('\n').slice(1); // without the header, which carries the name
};

describe('restoring goldset JSONL', () => {
  it('brings back every record of a file larger than one read, with CRLF line ends and blank lines', async () => {
    const { file, text } = await exported();
    expect(Buffer.byteLength(text)).toBeGreaterThan(1024 * 1024);
    const crlf = path.join(dir, 'crlf.jsonl');
    fs.writeFileSync(crlf, text.split('\n').join('\r\n\r\n'));
    for (const [f, name] of [[file, 'copy'], [crlf, 'copy-crlf']] as const) {
      const { datasetId, counts } = await restoreGoldsetJsonl(db, ctx.audit, f, { actorId: null, name });
      expect(counts).toMatchObject({ sample: 1500, response: 1500, annotation: 1500, label: 1500, criterion: 1 });
      expect(reexport(datasetId)).toEqual(text.trim().split('\n').slice(1));
    }
  });

  it('creates nothing when the last record is bad, and names its line', async () => {
    const { text } = await exported();
    const lines = text.trim().split('\n');
    const bad = path.join(dir, 'bad.jsonl');
    fs.writeFileSync(bad, `${text}{"type":"mystery"}\n`);
    const datasets = db.prepare('SELECT count(*) FROM dataset').pluck().get();
    const samples = db.prepare('SELECT count(*) FROM sample').pluck().get();
    const error = await restoreGoldsetJsonl(db, ctx.audit, bad, { actorId: null, name: 'copy' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GoldsetFormatError);
    expect((error as GoldsetFormatError).line).toBe(lines.length + 1);
    expect(db.prepare('SELECT count(*) FROM dataset').pluck().get()).toBe(datasets);
    expect(db.prepare('SELECT count(*) FROM sample').pluck().get()).toBe(samples);
  });
});
