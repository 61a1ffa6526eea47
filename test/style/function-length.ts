import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** One function, arrow function, method, accessor or constructor and the lines it spans. */
export interface FunctionSpan {
  /** File path relative to the scanned root, with `/` separators. */
  file: string;
  /** 1-based line of the function's first token (its `function`, name or parameter list). */
  line: number;
  /** Lines from the first to the last token, both counted. */
  lines: number;
  /** The name it is declared or assigned under, `<anonymous>` when it has none. */
  name: string;
  /** True when a leading comment carries {@link DATA_TABLE_MARK} and the body only returns a literal. */
  dataTable: boolean;
}

/**
 * The mark that exempts a function from the length limit: put in a comment right before it, and
 * only honoured when the function's body does nothing but return an object or array literal (a
 * data table written as a function). Anything else keeps counting.
 */
export const DATA_TABLE_MARK = "@data-table";

const SOURCE_ENDING = /\.(?:ts|mts|cts|js|mjs|cjs)$/;

/** Every source file below `dir` (relative to `root`), skipping `.d.ts`, `node_modules` and dot folders. */
function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && !entry.name.startsWith(".")) out.push(...sourceFiles(root, rel));
    } else if (SOURCE_ENDING.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      out.push(rel);
    }
  }
  return out.sort();
}

function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name !== undefined) return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name !== undefined) {
    return parent.name.getText();
  }
  return "<anonymous>";
}

function unwrap(expression: ts.Expression): ts.Expression {
  let current = expression;
  while (ts.isParenthesizedExpression(current) || ts.isAsExpression(current) || ts.isSatisfiesExpression(current)) current = current.expression;
  return current;
}

const isLiteral = (expression: ts.Expression): boolean => {
  const inner = unwrap(expression);
  return ts.isObjectLiteralExpression(inner) || ts.isArrayLiteralExpression(inner);
};

/** True when the function's body is a literal or a single `return <literal>`. */
function returnsOnlyLiteral(node: ts.FunctionLikeDeclaration): boolean {
  const body = node.body;
  if (body === undefined) return false;
  if (!ts.isBlock(body)) return isLiteral(body);
  const [only, ...rest] = body.statements;
  return only !== undefined && rest.length === 0 && ts.isReturnStatement(only) && only.expression !== undefined && isLiteral(only.expression);
}

/** The statement or declaration whose leading comments describe `node`. */
function commentHolder(node: ts.Node): ts.Node {
  let current: ts.Node = node;
  while (
    current.parent !== undefined &&
    (ts.isVariableDeclaration(current.parent) ||
      ts.isVariableDeclarationList(current.parent) ||
      ts.isVariableStatement(current.parent) ||
      ts.isPropertyAssignment(current.parent) ||
      ts.isPropertyDeclaration(current.parent) ||
      ts.isExportAssignment(current.parent))
  ) {
    current = current.parent;
  }
  return current;
}

function markedAsData(node: ts.Node, text: string): boolean {
  const holder = commentHolder(node);
  const ranges = ts.getLeadingCommentRanges(text, holder.getFullStart()) ?? [];
  return ranges.some((range) => text.slice(range.pos, range.end).includes(DATA_TABLE_MARK));
}

/** Every function-like node of one file's text, with its span. */
export function functionSpans(file: string, text: string): FunctionSpan[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const spans: FunctionSpan[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      spans.push({
        file,
        line: first + 1,
        lines: last - first + 1,
        name: functionName(fn),
        dataTable: markedAsData(fn, text) && returnsOnlyLiteral(fn),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return spans;
}

/**
 * Functions longer than `limit` lines in the source files below `dirs` (folders relative to
 * `root`), data tables marked with {@link DATA_TABLE_MARK} left out; longest first.
 */
export function longFunctions(root: string, dirs: readonly string[], limit: number): FunctionSpan[] {
  return dirs
    .flatMap((dir) => sourceFiles(root, dir))
    .flatMap((file) => functionSpans(file, readFileSync(path.join(root, file), "utf8")))
    .filter((span) => span.lines > limit && !span.dataTable)
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
}

/** One line per function: `file:line name (N lines)`. */
export const formatSpans = (spans: readonly FunctionSpan[]): string => spans.map((span) => `${span.file}:${span.line} ${span.name} (${span.lines} lines)`).join("\n");
