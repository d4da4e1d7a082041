// Import errors in the user's language, from the parser's stable codes and params.
import { translator, type Locale, type T } from '../i18n/index.ts';
import { describeError, type RowError } from '../io/errors.ts';
import type { LabelImportError } from './import-labels.ts';
import type { ImportFailure } from './import-service.ts';
import { clip } from '../limits.ts';

/**
 * Why an import was refused, in the user's language: what every entry point (the import page, the
 * command line) shows. Refusals of the whole file (labels without an author, scores, criteria,
 * score columns, rows that cannot be told apart) come before any row error; otherwise the file's
 * row or label errors, as many as the import kept (`totalErrors` counts them all).
 */
export function importRefusal(result: ImportFailure, locale: Locale): { wholeFile: boolean; messages: string[] } {
  const t = translator(locale);
  // Only the command line can leave labels without an author (the import page names the uploader; the API refuses labels).
  if (result.needsAnnotator) return { wholeFile: true, messages: [t('import.needs_annotator')] };
  if (result.ambiguousRows) return { wholeFile: true, messages: result.ambiguousRows.map((lines) => t('ragas.import_ambiguous', { lines: lines.join(', ') })) };
  if (result.missingScoreColumns) return { wholeFile: true, messages: [t('ragas.import_missing_score_columns', { columns: result.missingScoreColumns.join(', ') })] };
  if (result.scoreError) return { wholeFile: true, messages: [t(result.scoreError.key, result.scoreError.params)] };
  if (result.criterionError) return { wholeFile: true, messages: [`human.${result.criterionError.criterion}: ${t(result.criterionError.key, result.criterionError.params)}`] };
  if (result.labelErrors) return { wholeFile: false, messages: result.labelErrors.map((e) => labelErrorMessage(e, t)) };
  if (result.rows === 0 && result.totalErrors === 0) return { wholeFile: false, messages: [t('import.empty')] };
  return { wholeFile: false, messages: result.errors.map((e) => rowErrorMessage(e, locale)) };
}

/** A label cell the import refused, in the user's language. */
export function labelErrorMessage(e: LabelImportError, t: T): string {
  const params = { line: e.line, criterion: e.criterion, value: clip(e.value, 200).text };
  switch (e.problem ?? 'value') {
    case 'value': return t('import.label_error', { ...params, kind: t(`kind.${e.kind}`) });
    case 'not_a_list': return t('import.label_not_a_list', params);
    case 'unexpected_list': return t('import.label_unexpected_list', params);
    case 'list_length': return t('import.label_list_length', { ...params, expected: e.expected ?? 0, got: e.got ?? 0 });
  }
}

const item = (n: number | null) => (n !== null ? `（第 ${n} 项）` : '');

const KIND_ZH: Record<string, string> = { object: '对象', array: '数组', string: '文本', number: '数字', boolean: '布尔值', null: '空值' };

// Parsers explain in English (csv-parse's codes and messages, JSON.parse's messages, goldset's own
// JSON scanner); a Chinese reader gets the same explanation from these tables instead of that text.
const CSV_ZH: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: '引号没有闭合', CSV_INVALID_CLOSING_QUOTE: '闭合引号后出现了意外的字符', CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: '闭合引号后有多余的字符',
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: '单元格数与表头不一致', CSV_RECORD_INCONSISTENT_COLUMNS: '单元格数与表头不一致', CSV_MAX_RECORD_SIZE: '单条记录过大',
  CSV_INVALID_ARGUMENT: '文件无法按 CSV 读取', INVALID_OPENING_QUOTE: '单元格中间出现了引号',
};
const JSON_ZH: [RegExp, string][] = [
  [/unterminated string/i, '字符串缺少结束引号'], [/bad control character|bad escaped character/i, '字符串中有未转义的控制字符或无效的转义'],
  [/unexpected end of (json input|file inside)/i, '内容在记录中途结束'], [/missing closing '\]'/i, '文件结束时缺少右方括号 ]'],
  [/expected ',' or '\]' between records/i, '记录之间缺少逗号'], [/unexpected ','/i, '多余的逗号'], [/after the closing '\]'/i, '右方括号 ] 之后还有多余内容'],
  [/expected property name|expected double-quoted property name/i, '缺少带双引号的字段名'], [/expected ',' or '[}\]]'/i, '缺少逗号或右括号'],
  [/expected ':'/i, '字段名后缺少冒号'], [/unexpected (token|character|non-whitespace)/i, '出现了意外的字符'],
];
const LIST_ZH: Record<string, string> = {
  not_a_list: '不是列表', unterminated_list: '列表缺少右方括号 ]', unterminated_string: '列表项缺少结束引号', expected_string: '列表项应为带引号的文本',
  expected_separator: '列表项之间缺少逗号', mismatched_bracket: '括号不匹配', trailing_text: '列表之后有多余内容', bad_escape: '转义序列无效',
  unsupported_escape: '不支持的转义序列', bytes_literal: '不支持字节串（b\'…\'）', item_not_string: '列表项不是文本',
};
const VALUE_ZH: Record<string, string> = { 'must not be negative': '不能为负数' };

function jsonZh(detail: string): string {
  const where = /position (\d+)/i.exec(detail);
  const what = JSON_ZH.find(([re]) => re.test(detail))?.[1] ?? '格式错误';
  return where ? `${what}，约在第 ${Number(where[1]) + 1} 个字符处` : what;
}

/** What JSON.parse said of a text, in the user's language (its own English, or the Chinese tables above). */
export function jsonProblem(detail: string, locale: Locale): string {
  return locale === 'en' ? detail : jsonZh(detail);
}

/** English comes from the parser itself; Chinese is written here, parser details included (never the parser's English). */
export function rowErrorMessage(e: RowError, locale: Locale): string {
  if (locale === 'en') return describeError(e); // e.message, made again: a caller may have moved the line (0: none named)
  const at = e.line > 0 ? (e.unit === 'row' ? `第 ${e.line} 行：` : `第 ${e.line} 行：`) : '';
  const col = `${e.unit === 'row' ? '列' : '字段'}“${e.field ?? ''}”`;
  const names = (xs: string[]) => xs.map((x) => `“${x}”`).join(' 或 ');
  switch (e.code) {
    case 'unknown_format': return `无法判断“${e.params.filename}”的格式：请使用 .csv、.jsonl、.json 或 .xlsx 文件（旧版 .xls 工作簿请先另存为 .xlsx）`;
    case 'not_xlsx': return `无法读取该工作簿：${e.params.detail}；请在 Excel 或 WPS 中另存为 Excel 工作簿（.xlsx）后再导入`;
    case 'no_sheet': return `工作簿中没有名为“${e.params.sheet}”的工作表；现有工作表：${e.params.sheets.map((n) => `“${n}”`).join('、') || '无'}`;
    case 'file_too_large': return `${at}单个 JSON 值过大（${Math.round(e.params.bytes / 1048576)} MB，上限 ${Math.round(e.params.limit / 1048576)} MB）；请导出为 JSON 对象数组或 JSONL`;
    case 'not_an_array': return `应为 JSON 对象数组（[{…}, {…}]），实际是${KIND_ZH[e.params.got]}`;
    case 'missing_column': return `${at}缺少问题列：请添加名为 ${names(e.params.accepted)} 的列`;
    case 'csv_syntax': return `${at}CSV 语法错误：${CSV_ZH[e.params.csvCode] ?? '无法解析该行'}${e.params.fileLine !== null ? `（文件第 ${e.params.fileLine} 行附近）` : ''}；其后的内容未读取`;
    case 'column_count': return `${at}有 ${e.params.actual} 个单元格，但表头有 ${e.params.expected} 列；请检查单元格中未加引号的逗号`;
    case 'not_utf8': return `${at}文本不是有效的 UTF-8；请另存为“CSV UTF-8”或 UTF-8 文本后重新导入`;
    case 'invalid_json': return `${at}不是有效的 JSON（${jsonZh(e.params.detail)}）`;
    case 'not_an_object': return `${at}应为 JSON 对象 {…}，实际是${KIND_ZH[e.params.got]}`;
    case 'missing_value': return e.params.present ? `${at}${col}为空；每一行都需要有问题` : `${at}缺少问题：请添加 ${names(e.params.accepted)}`;
    case 'not_a_list': return `${at}${col}不是列表：应为 ['…'] 或 ["…"]（${LIST_ZH[e.params.reason] ?? '格式错误'}${e.params.position !== null ? `，位置 ${e.params.position}` : ''}）`;
    case 'not_a_string': return `${at}${col}应为文本，实际是${KIND_ZH[e.params.got]}`;
    case 'not_a_number': return `${at}${col}不是数字：“${clip(e.params.value, 40).text}”`;
    case 'invalid_value': return `${at}${col}无效：${VALUE_ZH[e.params.detail] ?? '值不符合要求'}`;
    case 'too_long': return `${at}${col}${item(e.params.item)}有 ${e.params.length} 个字符，上限为 ${e.params.limit}`;
    case 'too_many': return e.params.what === 'columns' ? `${at}该行有 ${e.params.count} 列，上限为 ${e.params.limit}`
      : e.params.what === 'label_columns' ? `${at}该行有 ${e.params.count} 个 human.<评判标准> 列，一个评测集最多 ${e.params.limit} 个评判标准`
      : `${at}${col}有 ${e.params.count} 项，上限为 ${e.params.limit}`;
    case 'nul_character': return `${at}${col}${item(e.params.item)}含有 NUL 字符（\\0），goldset 不保存此类字符`;
    case 'control_character': return `${at}${col}${item(e.params.item)}含有控制字符或文字方向标记，名称中不能有此类字符`;
    case 'too_deep': return `${at}该记录的数组和对象嵌套超过 ${e.params.limit} 层`;
    case 'out_of_range': return `${at}${col}为 ${e.params.value}，超出该指标的取值范围（${e.params.allowed}）`;
  }
}
