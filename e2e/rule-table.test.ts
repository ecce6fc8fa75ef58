// The table "Where each rule lives" of docs/architecture.md names, for every rule, the one
// function that decides it. This proves each row points at something real: the file exists and
// declares the symbol (exported when it is top-level; `Class.member` names a member of a class),
// found with the TypeScript compiler's parser, not a text search.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..');

interface RuleRow {
  rule: string;
  file: string;
  symbol: string;
}

/** The rows of the first table under the heading "Where each rule lives". */
export function ruleTable(markdown: string): RuleRow[] {
  const lines = markdown.split('\n');
  const heading = lines.findIndex((l) => /^#{2,4} Where each rule lives\s*$/.test(l));
  if (heading < 0) throw new Error('docs/architecture.md has no heading "Where each rule lives"');
  const start = lines.findIndex((l, i) => i > heading && l.startsWith('|'));
  const rows: RuleRow[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim());
    const code = (cell: string | undefined) => /^`([^`]+)`$/.exec(cell ?? '')?.[1] ?? '';
    rows.push({ rule: cells[0] ?? '', file: code(cells[1]), symbol: code(cells[2]) });
  }
  return rows;
}

const isExported = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** Names a top-level statement declares. */
function declaredNames(statement: ts.Statement): string[] {
  if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.map((d) => d.name.getText());
  if (
    (ts.isFunctionDeclaration(statement) ||
      ts.isClassDeclaration(statement) ||
      ts.isInterfaceDeclaration(statement) ||
      ts.isTypeAliasDeclaration(statement) ||
      ts.isEnumDeclaration(statement)) &&
    statement.name
  )
    return [statement.name.text];
  return [];
}

/** What the file says of `symbol`: '' when it declares it as the table needs, else what is wrong. */
export function findDeclaration(path: string, symbol: string): string {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const [name, member] = symbol.split('.');
  const statement = source.statements.find((s) => declaredNames(s).includes(name!));
  if (!statement) return `declares no ${name}`;
  if (!isExported(statement)) return `declares ${name} without exporting it`;
  if (member === undefined) return '';
  if (!ts.isClassDeclaration(statement)) return `${name} is not a class, so it has no member ${member}`;
  const found = statement.members.some((m) => m.name !== undefined && m.name.getText(source) === member);
  return found ? '' : `class ${name} has no member ${member}`;
}

describe('docs/architecture.md: where each rule lives', () => {
  const rows = ruleTable(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'));

  it('names the activity rule, the PMS refusal rule and the booking rule, each with a file and a symbol', () => {
    expect(rows.length).toBeGreaterThanOrEqual(10);
    expect(rows.filter((r) => !r.file || !r.symbol)).toEqual([]);
    const rules = rows.map((r) => r.rule).join('\n');
    expect(rules).toContain('listing_inactive');
    expect(rules).toContain('pms_write_unsupported');
    expect(rules).toContain('dates_unavailable');
  });

  it('every row points at a file that exists and declares its symbol', () => {
    const problems = rows.flatMap((r) => {
      const path = join(ROOT, r.file);
      if (!existsSync(path)) return [`${r.file}: no such file (rule: ${r.rule})`];
      const wrong = findDeclaration(path, r.symbol);
      return wrong ? [`${r.file}: ${wrong} (rule: ${r.rule})`] : [];
    });
    expect(problems).toEqual([]);
  });

  it('finds declarations with the parser: a name in a comment or a string is not a declaration', () => {
    const file = join(ROOT, 'e2e/rule-table.test.ts');
    expect(findDeclaration(file, 'ruleTable')).toBe('');
    expect(findDeclaration(file, 'isExported')).toBe('declares isExported without exporting it');
    expect(findDeclaration(file, 'noSuchRule')).toBe('declares no noSuchRule');
    expect(findDeclaration(join(ROOT, 'services/reservation/src/store/night-store.ts'), 'NightStore.noSuchMember')).toBe(
      'class NightStore has no member noSuchMember',
    );
  });
});
