/**
 * Finds the long functions in a TypeScript source text: every function-like node (declaration,
 * method, constructor, accessor, arrow function, function expression) whose body spans more than
 * a number of lines. A function's length counts its body from the line of its first token to the
 * line of its last, so nested functions count inside their outer one too.
 */
import ts from 'typescript';

export const MAX_FUNCTION_LINES = 120;

export interface LongFunction {
  /** Relative to the repository root, POSIX separators. */
  file: string;
  /** 1-based line where the function starts (its first token, not its doc comment). */
  line: number;
  /** Qualified by its enclosing classes and functions, e.g. `QbftNode.importBlock`. */
  name: string;
  /** Lines the body spans, first and last included. */
  lines: number;
}

type FunctionLike = ts.FunctionLikeDeclaration & { body: ts.ConciseBody };

export function findLongFunctions(file: string, source: string, maxLines = MAX_FUNCTION_LINES): LongFunction[] {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, kind);
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (hasBody(node)) {
      const lines = lineOf(node.body.getEnd()) - lineOf(node.body.getStart(sf)) + 1;
      if (lines > maxLines) found.push({ file, line: lineOf(node.getStart(sf)), name: qualifiedName(node, sf), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

export const formatLongFunction = (f: LongFunction) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`;

function hasBody(node: ts.Node): node is FunctionLike {
  return ts.isFunctionLike(node) && 'body' in node && node.body !== undefined;
}

/** The function's own name prefixed with the names of the classes and functions around it. */
function qualifiedName(node: ts.Node, sf: ts.SourceFile): string {
  const parts: string[] = [];
  for (let n: ts.Node | undefined = node; n && !ts.isSourceFile(n); n = n.parent) {
    if (ts.isClassLike(n)) parts.unshift(n.name?.text ?? '<class>');
    else if (hasBody(n)) parts.unshift(ownName(n, sf));
  }
  return parts.join('.');
}

function ownName(node: FunctionLike, sf: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const accessor = ts.isGetAccessorDeclaration(node) ? 'get ' : ts.isSetAccessorDeclaration(node) ? 'set ' : '';
  if (node.name) return accessor + node.name.getText(sf);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(sf);
  if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) return parent.left.getText(sf);
  if (ts.isCallExpression(parent)) return `<callback of ${parent.expression.getText(sf)}>`;
  return '<anonymous>';
}
