// Import errors in the user's language, from the parser's stable codes and params.
import type { Locale } from '../i18n/index.ts';
import type { RowError } from '../io/errors.ts';

const KIND_ZH: Record<string, string> = { object: '对象', array: '数组', string: '文本', number: '数字', boolean: '布尔值', null: '空值' };

/** English comes from the parser itself; Chinese is written here. Parser details (JSON.parse text) stay verbatim. */
export function rowErrorMessage(e: RowError, locale: Locale): string {
  if (locale === 'en') return e.message;
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
    case 'csv_syntax': return `${at}CSV 语法错误：${e.params.detail}${e.params.fileLine !== null ? `（文件第 ${e.params.fileLine} 行附近）` : ''}；其后的内容未读取`;
    case 'column_count': return `${at}有 ${e.params.actual} 个单元格，但表头有 ${e.params.expected} 列；请检查单元格中未加引号的逗号`;
    case 'not_utf8': return `${at}文本不是有效的 UTF-8；请另存为“CSV UTF-8”或 UTF-8 文本后重新导入`;
    case 'invalid_json': return `${at}不是有效的 JSON（${e.params.detail}）`;
    case 'not_an_object': return `${at}应为 JSON 对象 {…}，实际是${KIND_ZH[e.params.got]}`;
    case 'missing_value': return e.params.present ? `${at}${col}为空；每一行都需要有问题` : `${at}缺少问题：请添加 ${names(e.params.accepted)}`;
    case 'not_a_list': return `${at}${col}不是列表：应为 ['…'] 或 ["…"]（${e.params.detail}${e.params.position !== null ? `，位置 ${e.params.position}` : ''}）`;
    case 'not_a_string': return `${at}${col}应为文本，实际是${KIND_ZH[e.params.got]}`;
    case 'not_a_number': return `${at}${col}不是数字：“${e.params.value.slice(0, 40)}”`;
    case 'invalid_value': return `${at}${col}无效：${e.params.detail}`;
  }
}
