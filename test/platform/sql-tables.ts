import { loadModule, parseSync } from 'libpg-query';
import ts from 'typescript';

/**
 * The tables that the SQL written in a source file names, read by PostgreSQL's own parser
 * (libpg-query: the server's grammar compiled to WebAssembly), not matched by patterns: a table
 * after a comma in FROM, in `DELETE … USING`, `UPDATE … FROM`, a join, a subquery or a CTE is a
 * table reference (a `RangeVar` node) like any other, and a name in a comment or a string is none.
 *
 * SQL in this code base is written in template literals whose `${…}` parts are values, drizzle
 * table objects, column lists or fragments of other statements. Each literal is parsed whole: its
 * `${…}` parts are stood in for by what their place allows (an identifier, a parameter number, a
 * CTE, nothing), and a fragment is wrapped in the smallest statement that holds it (`WITH …`,
 * `SELECT * FROM __x …`). A stand-in never names a real table, so a table passed in as a drizzle
 * object (`${channels}`: the owner's own object, whose import the layering rules check) is not
 * counted here.
 */

export type SqlLiteral = {
  line: number;
  /** The literal's text with each `${…}` shown as ⟪…⟫, for messages. */
  text: string;
  /** The tables it names, or null when the parser could not read it under any stand-in. */
  tables: string[] | null;
};

/** Must be awaited once before `sqlLiterals` (the parser is WebAssembly). */
export const loadSqlParser = (): Promise<void> => loadModule();

/** What makes a literal SQL rather than prose: a statement's shape. */
const STATEMENT =
  /\bselect\b[\s\S]*\bfrom\b|\binsert\s+into\b|\bdelete\s+from\b|\bupdate\s+\S+\s+(\w+\s+)?set\b|\bcopy\s*\(|\b(from|join|into|update|table|using|references)\s+"?[a-z_]/i;
const STAND_IN = /^__[ix]\d*$/;

const withoutLineComments = (text: string) => text.replace(/--[^\n]*/g, '');

/**
 * The stand-ins a `${…}` may take, most likely first, by the text around it (`before`, `after`,
 * comments removed): a parameter's number after `$`, an assignment after `SET`, a statement before
 * `RETURNING`; elsewhere a name (a value, a table, a column list), nothing (an optional clause), a
 * CTE, a CTE with its leading comma, or a whole statement.
 */
function standIns(before: string, after: string, i: number): string[] {
  const prev = before.trimEnd();
  const next = after.trimStart();
  if (prev.endsWith('$')) return ['1'];
  if (/\bset$/i.test(prev)) return [`__i${i} = 1`];
  if (/^returning\b/i.test(next)) return [`INSERT INTO __i${i} DEFAULT VALUES`];
  return [`__i${i}`, '', `__i${i} AS (SELECT 1)`, `, __i${i} AS (SELECT 1)`, 'SELECT 1'];
}

type Filled = { text: string; starts: number[] };

function fill(parts: string[], options: string[][], choice: number[]): Filled {
  let text = parts[0];
  const starts: number[] = [];
  for (let i = 1; i < parts.length; i++) {
    const option = options[i - 1][choice[i - 1]];
    starts.push(text.length);
    // No spaces around a parameter's number (`$${n}` is `$1`); spaces elsewhere keep tokens apart.
    text += option === '1' ? `${option}${parts[i]}` : ` ${option} ${parts[i]}`;
  }
  return { text, starts };
}

/** Where the parser stopped in `text` (0-based), or null when it read it. */
function parseError(text: string): number | null {
  try {
    parseSync(text);
    return null;
  } catch (error) {
    const position = (error as { sqlDetails?: { cursorPosition?: number } }).sqlDetails?.cursorPosition;
    return typeof position === 'number' ? position : text.length;
  }
}

/**
 * A filling of the `${…}` parts that parses between `prefix` and `suffix`, found the way the parser points: the
 * stand-in last before the place it stopped is the likeliest wrong one, so it takes its next
 * option (the later ones start again); once its options are spent, the one before it does.
 */
function parseFilled(parts: string[], prefix: string, suffix: string): string | null {
  const options = parts.slice(1).map((_, k) => {
    const before = withoutLineComments(parts.slice(0, k + 1).join(' __i '));
    return standIns(before, withoutLineComments(parts[k + 1]), k + 1);
  });
  const choice = options.map(() => 0);
  for (let attempt = 0; attempt < 400; attempt++) {
    const filled = fill(parts, options, choice);
    const wrapped = `${prefix}${filled.text}${suffix}`;
    const stopped = parseError(wrapped);
    if (stopped === null) return wrapped;
    const at = stopped - prefix.length;
    let k = filled.starts.filter((start) => start < at).length - 1;
    while (k >= 0 && choice[k] === options[k].length - 1) k--;
    if (k < 0) return null;
    choice[k]++;
    for (let later = k + 1; later < choice.length; later++) choice[later] = 0;
  }
  return null;
}

/** The statements that hold a fragment: itself, a CTE list, a clause, an expression, a head. */
const WRAPS: Array<[prefix: string, suffix: string]> = [
  ['', ''],
  ['WITH ', ' SELECT 1'],
  ['WITH ', ''],
  ['SELECT * FROM __x ', ''],
  ['SELECT * FROM ', ''],
  ['SELECT ', ''],
  ['SELECT * FROM __x WHERE ', ''],
  ['SELECT * FROM __x WHERE true ', ''],
  ['', ')'],
];

/** The relations a parse tree references (its `RangeVar`s), less the CTEs it defines. */
function relationsOf(tree: unknown): string[] {
  const names = new Set<string>();
  const ctes = new Set<string>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    // A RangeVar: wrapped as `{RangeVar: {relname}}` in lists (FROM), bare where the grammar
    // allows nothing else (the target of INSERT, UPDATE, DELETE, COPY; a foreign key's table).
    const { relname, ctename } = node as { relname?: unknown; ctename?: unknown };
    if (typeof relname === 'string') names.add(relname);
    if (typeof ctename === 'string') ctes.add(ctename);
    Object.values(node).forEach(walk);
  };
  walk(tree);
  return [...names].filter((name) => !ctes.has(name) && !STAND_IN.test(name)).sort();
}

/** The tables of a literal given as its parts between `${…}`; null when nothing parses. */
export function tablesOf(parts: string[]): string[] | null {
  for (const [prefix, suffix] of WRAPS) {
    const statement = parseFilled(parts, prefix, suffix);
    if (statement !== null) return relationsOf(parseSync(statement));
  }
  return null;
}

/**
 * The SQL literals of a TypeScript file: every string or template literal shaped like a
 * statement or a fragment of one (`STATEMENT`), with the tables it names.
 */
export function sqlLiterals(fileName: string, source: string): SqlLiteral[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: SqlLiteral[] = [];
  const visit = (node: ts.Node) => {
    let parts: string[] | null = null;
    if (ts.isNoSubstitutionTemplateLiteral(node) || ts.isStringLiteral(node)) parts = [node.text];
    else if (ts.isTemplateExpression(node)) {
      parts = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)];
    }
    if (parts && STATEMENT.test(parts.join(' __i '))) {
      found.push({
        line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1,
        text: parts.join('⟪…⟫'),
        tables: tablesOf(parts),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}
