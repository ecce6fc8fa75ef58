// docs/api.md's error table is checked against the error catalog: one row per code, with the
// catalog's HTTP status and a sentence saying when it fires. A code added to the catalog fails
// here until its row is written; a removed one until its row is.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CATALOG, type ErrorCode } from '../src/errors';

const API_MD = join(__dirname, '../../../docs/api.md');

function documentedRows(): { code: string; http: string; when: string }[] {
  const text = readFileSync(API_MD, 'utf8');
  const table = text.slice(text.indexOf('| code | HTTP | when it fires |'));
  return table
    .split('\n')
    .slice(2)
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [code = '', http = '', when = ''] = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      return { code: code.replace(/`/g, ''), http, when };
    });
}

describe('docs/api.md error table', () => {
  const rows = documentedRows();

  it('has one row per catalog code, and no other', () => {
    const documented = rows.map((r) => r.code);
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual(Object.keys(ERROR_CATALOG).sort());
  });

  it("gives each code the catalog's HTTP status and says when it fires", () => {
    const wrong = rows
      .filter((r) => r.code in ERROR_CATALOG)
      .filter((r) => r.http !== String(ERROR_CATALOG[r.code as ErrorCode].http) || r.when.length < 10)
      .map((r) => `${r.code}: documented ${r.http}, catalog ${ERROR_CATALOG[r.code as ErrorCode].http}`);
    expect(wrong).toEqual([]);
  });
});
