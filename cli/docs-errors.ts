/**
 * Writes the table of error codes into docs/widget-api.md from
 * contracts/errors.ts (the source the OpenAPI document is built from):
 *   npm run docs:errors
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { errorTable } from '../contracts/errors.ts';

export const ERROR_TABLE_START = '<!-- error-codes:start -->';
export const ERROR_TABLE_END = '<!-- error-codes:end -->';
const file = new URL('../docs/widget-api.md', import.meta.url);
const text = readFileSync(file, 'utf8');
const start = text.indexOf(ERROR_TABLE_START);
const end = text.indexOf(ERROR_TABLE_END);
if (start < 0 || end < start) throw new Error(`docs/widget-api.md has no ${ERROR_TABLE_START} … ${ERROR_TABLE_END}`);
writeFileSync(file, `${text.slice(0, start + ERROR_TABLE_START.length)}\n${errorTable()}\n${text.slice(end)}`);
console.log('docs/widget-api.md: error table written');
