import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The lines of the section under a `## ` heading. */
function section(title: string): string[] {
  const start = readme.indexOf(`\n## ${title}\n`);
  expect(start).toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end === -1 ? undefined : end).split('\n');
}

describe('README', () => {
  it('lists every served route in one table (a blank line would turn the rows after it into text)', () => {
    const lines = section('What is served today');
    const rows = lines.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith('|'));
    expect(rows.length).toBeGreaterThan(10);
    const first = rows[0]?.[1] ?? 0;
    const last = rows.at(-1)?.[1] ?? 0;
    // one table: every line from its header to its last row is a row
    expect(lines.slice(first, last + 1).filter((l) => !l.startsWith('|'))).toEqual([]);
    expect(lines.slice(first, last + 1).join('\n')).toContain('`GET /widget/v1/client.mjs`');
  });
});
