// The command line: import, export, user add, backup, example; --json output and exit codes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';

let dir: string;
let db: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'goldset-cli-'));
  db = path.join(dir, 'cli.db');
});

function goldset(args: string[], input?: string, env: Record<string, string | undefined> = {}) {
  const res = spawnSync(process.execPath, ['--import', 'tsx', 'server/cli.ts', ...args], {
    cwd: path.resolve(import.meta.dirname, '../..'), input, encoding: 'utf8',
    env: { ...process.env, GOLDSET_DB: db, ...env },
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

function write(name: string, content: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

describe('goldset CLI', () => {
  it('imports a file into a new dataset and reports it as JSON', () => {
    const file = write('set.jsonl', [
      JSON.stringify({ user_input: '张伟是哪个部门的？', reference: '教研部', reference_contexts: ['张伟 教研部工程师'] }),
      JSON.stringify({ question: 'Old style question', ground_truth: 'Old style answer' }),
    ].join('\n'));
    const res = goldset(['import', file, '--dataset', 'HR', '--language', 'zh', '--json']);
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out).toMatchObject({ ok: true, dataset: 'HR', dataset_created: true, rows: 2, created: 2, matched: 0 });
    const again = JSON.parse(goldset(['import', file, '--dataset', 'HR', '--json']).stdout);
    expect(again).toMatchObject({ ok: true, dataset_created: false, created: 0, matched: 2 });
  });

  it('exits non-zero and names the row when a file has a bad row, importing nothing', () => {
    const file = write('bad.jsonl', `${JSON.stringify({ user_input: 'ok' })}\n{not json}\n`);
    const res = goldset(['import', file, '--dataset', 'HR']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('line 2');
    const sqlite = new Database(db, { readonly: true });
    expect(sqlite.prepare('SELECT count(*) FROM sample').pluck().get()).toBe(0);
    sqlite.close();
  });

  it('says what is wrong with the file in the environment\'s language (LANG, or GOLDSET_LANG), its usage in English', () => {
    const file = write('bad.jsonl', `${JSON.stringify({ user_input: 'ok' })}\n{not json}\n${JSON.stringify({ answer: 'no question' })}\n`);
    const chinese = { GOLDSET_LANG: undefined, LC_ALL: '', LC_MESSAGES: '', LANG: 'zh_CN.UTF-8' };
    const zh = goldset(['import', file, '--dataset', 'HR'], undefined, chinese);
    expect(zh.code).toBe(1);
    expect(zh.stderr).toContain('未导入任何内容。');
    expect(zh.stderr).toContain('第 2 行：不是有效的 JSON');
    expect(zh.stderr).toContain('第 3 行：缺少问题');
    // LC_ALL decides over LANG; GOLDSET_LANG over both.
    expect(goldset(['import', file, '--dataset', 'HR'], undefined, { ...chinese, LC_ALL: 'en_US.UTF-8' }).stderr).toContain('line 2: not valid JSON');
    expect(goldset(['import', file, '--dataset', 'HR'], undefined, { ...chinese, GOLDSET_LANG: 'en' }).stderr).toContain('Nothing was imported.');
    // A refusal of the whole file, and one of the label service's, in Chinese too.
    const tooLong = goldset(['import', write('ok.jsonl', JSON.stringify({ user_input: 'q', response: 'a', faithfulness: 0.5 })), '--dataset', 'HR', '--run', 'r'.repeat(201)], undefined, chinese);
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toContain('运行名称有 201 个字符，上限为 200。');
    // A dataset that is not there, for every command that names one (datasets/named.ts).
    expect(goldset(['export', '--dataset', '没有的', '--format', 'ragas-jsonl', '--out', path.join(dir, 'x')], undefined, chinese).stderr).toContain('没有名为“没有的”的评测集');
    expect(goldset(['agreement', '--dataset', '没有的', '--criterion', 'c'], undefined, chinese).stderr).toContain('没有名为“没有的”的评测集');
    // How to call a command stays English, as its usage text is.
    expect(goldset(['import', file], undefined, chinese).stderr).toContain('missing --dataset NAME');
    // An unknown GOLDSET_LANG is refused as any bad setting is.
    const bad = goldset(['import', file, '--dataset', 'HR'], undefined, { GOLDSET_LANG: 'fr' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('GOLDSET_LANG');
    const sqlite = new Database(db, { readonly: true });
    expect(sqlite.prepare('SELECT count(*) FROM sample').pluck().get()).toBe(0);
    sqlite.close();
  });

  it('exports approved samples by default, and all with --status all', () => {
    goldset(['import', write('s.jsonl', [JSON.stringify({ user_input: 'A?', reference: 'a' }), JSON.stringify({ user_input: 'B?', reference: 'b' })].join('\n')), '--dataset', 'HR']);
    const sqlite = new Database(db);
    sqlite.prepare("UPDATE sample SET status = 'approved' WHERE question = 'A?'").run();
    sqlite.close();
    const out = path.join(dir, 'out.jsonl');
    const res = goldset(['export', '--dataset', 'HR', '--format', 'ragas-jsonl', '--out', out, '--json']);
    expect(JSON.parse(res.stdout)).toMatchObject({ ok: true, samples: 1 });
    expect(fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l))).toEqual([{ user_input: 'A?', reference: 'a', reference_contexts: [] }]);
    expect(goldset(['export', '--dataset', 'HR', '--format', 'ragas-jsonl', '--out', out]).stdout).toContain(`wrote 1 sample to ${out}`);
    const csv = path.join(dir, 'out.csv');
    expect(goldset(['export', '--dataset', 'HR', '--format', 'ragas-csv', '--out', csv, '--status', 'all']).stdout).toContain(`wrote 2 samples to ${csv}`);
    expect(fs.readFileSync(csv, 'utf8').trim().split('\n')).toEqual(['user_input,reference,reference_contexts', 'A?,a,[]', 'B?,b,[]']);
  });

  it('adds a user with the password read from standard input, never from arguments', () => {
    const res = goldset(['user', 'add', 'Expert@Example.com', '--role', 'expert', '--password-stdin', '--json'], 'a very good password\n');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ ok: true, email: 'expert@example.com', role: 'expert' });
    expect(res.stdout + res.stderr).not.toContain('a very good password');
    const dup = goldset(['user', 'add', 'expert@example.com', '--role', 'expert', '--password-stdin'], 'a very good password\n');
    expect(dup.code).toBe(2);
    expect(dup.stderr).toContain('already exists');
    const noStdin = goldset(['user', 'add', 'x@example.com', '--role', 'expert']);
    expect(noStdin.code).toBe(2);
    expect(noStdin.stderr).toContain('--password-stdin');
  });

  it('says in the environment\'s language what a command names that is not there, and what does not fit a spreadsheet', () => {
    goldset(['import', write('long.jsonl', JSON.stringify({ question: 'Q?', answer: 'x'.repeat(40_000) })), '--dataset', 'HR']);
    const zh = { GOLDSET_LANG: 'zh' };
    const noJudge = { OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined, GOLDSET_JUDGE_MODEL: undefined };
    const runs = [
      goldset(['score', '--dataset', 'HR', '--metric', 'nonsense'], undefined, zh),
      goldset(['score', '--dataset', 'HR', '--metric', 'exact_match', '--release', 'v9'], undefined, zh),
      goldset(['score', '--dataset', 'HR', '--metric', 'faithfulness'], undefined, { ...zh, ...noJudge }),
      goldset(['agreement', '--dataset', 'HR', '--criterion', 'nope'], undefined, zh),
    ];
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2]);
    expect(runs[0]!.stderr).toContain('评测集“HR”中没有指标“nonsense”；可用的指标：');
    expect(runs[0]!.stderr).toContain('exact_match');
    expect(runs[1]!.stderr).toContain('评测集“HR”中没有标签为“v9”的版本');
    expect(runs[2]!.stderr).toContain('尚未配置评测模型接口：请设置 OPENAI_BASE_URL 和 GOLDSET_JUDGE_MODEL');
    expect(runs[3]!.stderr).toContain('评测集“HR”中没有名为“nope”的评判标准（已有：—）');
    // An answer longer than a cell holds: refused before the file is begun, in the Export page's words.
    const out = path.join(dir, 'out.xlsx');
    const en = goldset(['export', '--dataset', 'HR', '--format', 'xlsx', '--responses', '--status', 'all', '--out', out]);
    expect(en.code).toBe(2);
    expect(en.stderr).toContain('A spreadsheet cell holds at most 32,767 characters, and the column response of the sample "Q?" has 40000.');
    const inChinese = goldset(['export', '--dataset', 'HR', '--format', 'xlsx', '--responses', '--status', 'all', '--out', out], undefined, zh);
    expect(inChinese.stderr).toContain('电子表格的一个单元格最多容纳 32,767 个字符，而样本“Q?”的 response 列有 40000 个字符。');
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('out'))).toEqual([]);
  });

  it('prints the data\'s control characters as \\uXXXX: a column name cannot send the terminal a command', () => {
    // OSC 52 writes the clipboard, a bell ends it; U+202E shows the rest of the line reversed.
    const evil = 'notes\u001b]52;c;cHduZWQ=\u0007\u202e';
    const file = write('evil.csv', `question,ground_truth,"${evil}"\nQ?,A,x\n`);
    const text = goldset(['import', file, '--dataset', 'HR']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('ignored columns: notes\\u001b]52;c;cHduZWQ=\\u0007\\u202e');
    const json = goldset(['import', file, '--dataset', 'HR2', '--json']);
    expect(JSON.parse(json.stdout).ignored_columns).toEqual([evil]); // the same value
    for (const out of [text.stdout, text.stderr, json.stdout, json.stderr]) expect(out).not.toMatch(/[\u0007\u001b\u202e]/);
  });

  it('refuses bad input with a clear message and exit code 2', () => {
    expect(goldset(['export', '--dataset', 'Nope', '--format', 'ragas-jsonl', '--out', path.join(dir, 'x')]).stderr).toContain('no dataset named "Nope"');
    const bad = goldset(['export', '--dataset', 'Nope', '--format', 'xml', '--out', 'x', '--json']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error).toContain('--format must be one of');
    expect(goldset(['frobnicate']).code).toBe(2);
    // The usage asked for is an answer; given instead of a command, a refusal.
    const help = goldset(['--help']);
    expect([help.code, help.stdout.startsWith('usage: npm run goldset -- <command>')]).toEqual([0, true]);
    const none = goldset([]);
    expect([none.code, none.stdout.startsWith('usage: ')]).toEqual([2, true]);
    // An address the user forms would refuse, a control character in it included, is refused here too.
    const email = goldset(['user', 'add', 'li\u001b[2J@example.com', '--role', 'expert', '--password-stdin'], 'a very good password\n');
    expect(email.code).toBe(2);
    expect(email.stderr).toContain('li\\u001b[2J@example.com: Enter a valid email address.');
    expect(goldset(['import', path.join(dir, 'missing.csv'), '--dataset', 'HR']).stderr).toContain('no such file');
  });

  it('backs up the database online to a new file and loads the example data', () => {
    expect(goldset(['example', '--json']).code).toBe(0);
    const backup = path.join(dir, 'backup.db');
    const res = goldset(['backup', backup, '--json']);
    expect(res.code).toBe(0);
    const copy = new Database(backup, { readonly: true });
    expect(copy.prepare('SELECT count(*) FROM dataset').pluck().get()).toBe(2);
    copy.close();
    expect(goldset(['backup', backup]).code).toBe(2);
  });
});
