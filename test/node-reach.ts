/**
 * The reach-through rule of the architecture (architecture-rules.ts), read from the sources' syntax
 * with the TypeScript compiler: the node's parts stay behind its composition root.
 *   - only the root and the parts themselves import a part module;
 *   - the root is wiring only: a page at most, no class of its own (jobs are parts);
 *   - the root exports, and everyone imports from it, only the names the rule lists (createNode,
 *     the view, the actions, config and value types);
 *   - the node object the root returns (the handle) has no public mutable field and no public
 *     member that its view, action and driver interfaces do not declare;
 *   - the view modules do not hand out a part's class (the chain, the engine, the pool...);
 *   - code outside the node's modules does not get at the handle's private members or its parts
 *     by a cast (`(node as any).chain`) or by name (`node['parts']`).
 */
import ts from 'typescript';

export interface ReachRules {
  /** The composition root (node/node.ts): wiring only, one page at most, no class of its own. */
  root: string;
  rootMaxLines: number;
  /** The part modules: only the root and the parts import them. */
  parts: RegExp;
  /** The module of the class the root returns, its class name and the interface listing its parts. */
  handle: { module: string; className: string; partsInterface: string };
  /** The view modules and the interfaces the handle's public members must come from. */
  view: { files: RegExp; module: string; interfaces: readonly string[] };
  /** What the root may export and others import from it. */
  rootExports: readonly string[];
  /** Classes of the node's parts that the view may not hand out. */
  hiddenClasses: readonly string[];
}

export interface ReachFinding {
  path: string;
  line: number;
  subject: string;
  message: string;
}

interface SourceLike {
  path: string;
  source: string;
}

type Resolve = (importer: string, specifier: string) => string;

interface ImportedNames {
  target: string;
  line: number;
  /** Imported (or re-exported) names; `*` for a namespace, `export *` or import('...'); `default` for a default import. */
  names: string[];
}

export function reachThroughFindings(files: readonly SourceLike[], rules: ReachRules, resolve: Resolve): ReachFinding[] {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const parseAt = (path: string) => {
    const f = byPath.get(path);
    return f && parse(f);
  };
  const found: ReachFinding[] = [];
  const root = parseAt(rules.root);
  if (root) found.push(...rootExportFindings(root, rules));
  const handle = parseAt(rules.handle.module);
  const view = parseAt(rules.view.module);
  let internal = new Set<string>();
  if (handle) {
    const surface = new Set(view ? interfaceMembers(view, rules.view.interfaces) : []);
    const { findings, publicNames, privateNames } = handleFindings(handle, rules, surface);
    found.push(...findings);
    internal = new Set([...privateNames, ...interfaceMembers(handle, [rules.handle.partsInterface])].filter((n) => !publicNames.has(n)));
  }
  const castHint = internal.size === 0 ? undefined : new RegExp(`[)!]\\s*\\.\\s*(${[...internal].join('|')})\\b|\\[\\s*['"\`](${[...internal].join('|')})['"\`]\\s*\\]`);
  const own = (path: string) => path === rules.root || rules.parts.test(path);
  for (const f of files) {
    // Parsing every file is slow: only those whose text could break a rule are read.
    const imports = IMPORT_HINT.test(f.source) || rules.view.files.test(f.path);
    const casts = castHint !== undefined && !own(f.path) && castHint.test(f.source);
    if (!imports && !casts) continue;
    const sf = parse(f);
    if (imports) for (const imp of importedNames(sf, f.path, resolve)) found.push(...importFindings(f.path, imp, rules));
    if (rules.view.files.test(f.path)) found.push(...hiddenClassFindings(f.path, sf, rules, resolve));
    if (casts) found.push(...castFindings(f.path, sf, internal));
  }
  return found;
}

/** Text that may import the root or a part (any module named node.ts, any path through parts/, a dynamic import). */
const IMPORT_HINT = /node\.ts['"]|\/parts\/|\bimport\s*\(/;

function parse(f: SourceLike): ts.SourceFile {
  const kind = f.path.endsWith('.tsx') ? ts.ScriptKind.TSX : /\.[mc]?js$/.test(f.path) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  return ts.createSourceFile(f.path, f.source, ts.ScriptTarget.Latest, true, kind);
}

const lineOf = (sf: ts.SourceFile, node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;

function importFindings(path: string, imp: ImportedNames, rules: ReachRules): ReachFinding[] {
  if (rules.parts.test(imp.target) && path !== rules.root && !rules.parts.test(path)) {
    return [{ path, line: imp.line, subject: imp.target, message: `imports the node part ${imp.target}: only ${rules.root} wires the parts; use the node's view` }];
  }
  if (imp.target !== rules.root || rules.parts.test(path)) return [];
  return imp.names
    .filter((n) => !rules.rootExports.includes(n))
    .map((n) => ({ path, line: imp.line, subject: n, message: `imports ${n} from ${rules.root}, which offers only createNode, the node's view and actions, and config and value types` }));
}

function importedNames(sf: ts.SourceFile, path: string, resolve: Resolve): ImportedNames[] {
  const out: ImportedNames[] = [];
  const add = (node: ts.Node, spec: ts.Expression | undefined, names: string[]) => {
    if (spec && ts.isStringLiteralLike(spec)) out.push({ target: resolve(path, spec.text), line: lineOf(sf, node), names });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const names: string[] = [];
      if (clause?.name) names.push('default');
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.push('*');
      if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) names.push((e.propertyName ?? e.name).text);
      add(node, node.moduleSpecifier, names);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const clause = node.exportClause;
      const names = clause && ts.isNamedExports(clause) ? clause.elements.map((e) => (e.propertyName ?? e.name).text) : ['*'];
      add(node, node.moduleSpecifier, names);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node, node.arguments[0], ['*']);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal as ts.Expression, [node.qualifier ? leftmost(node.qualifier) : '*']);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

function leftmost(name: ts.EntityName): string {
  return ts.isIdentifier(name) ? name.text : leftmost(name.left);
}

function hiddenClassFindings(path: string, sf: ts.SourceFile, rules: ReachRules, resolve: Resolve): ReachFinding[] {
  return importedNames(sf, path, resolve).flatMap((imp) =>
    imp.names.filter((n) => rules.hiddenClasses.includes(n)).map((n) => ({ path, line: imp.line, subject: n, message: `the node's view hands out ${n}, one of its parts; offer the query it serves instead` })),
  );
}

function hasModifier(node: ts.Node, kind: ts.SyntaxKind): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === kind);
}

function rootExportFindings(sf: ts.SourceFile, rules: ReachRules): ReachFinding[] {
  const found: ReachFinding[] = [];
  const lines = sf.getLineAndCharacterOfPosition(sf.getEnd()).line + (sf.text.endsWith('\n') ? 0 : 1);
  if (lines > rules.rootMaxLines) found.push({ path: rules.root, line: 1, subject: `${lines} lines`, message: `${rules.root} is ${lines} lines: the composition root stays a page (${rules.rootMaxLines} at most); move the job into a part` });
  for (const stmt of sf.statements)
    if (ts.isClassDeclaration(stmt)) found.push({ path: rules.root, line: lineOf(sf, stmt), subject: `class ${stmt.name?.text ?? 'default'}`, message: `${rules.root} declares a class: the composition root only wires; a job is a part` });
  const check = (node: ts.Node, name: string) => {
    if (!rules.rootExports.includes(name)) found.push({ path: rules.root, line: lineOf(sf, node), subject: name, message: `${rules.root} exports ${name}: it offers only createNode, the node's view and actions, and config and value types` });
  };
  for (const stmt of sf.statements) {
    if (ts.isExportDeclaration(stmt)) {
      const clause = stmt.exportClause;
      if (clause && ts.isNamedExports(clause)) for (const e of clause.elements) check(e, e.name.text);
      else check(stmt, '*');
    } else if (ts.isExportAssignment(stmt)) check(stmt, 'default');
    else if (hasModifier(stmt, ts.SyntaxKind.ExportKeyword)) {
      if (ts.isVariableStatement(stmt)) for (const d of stmt.declarationList.declarations) check(d, d.name.getText(sf));
      else {
        const named = stmt as ts.Node & { name?: ts.Identifier };
        check(stmt, named.name?.text ?? 'default');
      }
    }
  }
  return found;
}

/** Names of the members of these interfaces, wherever they are declared in the file. */
function interfaceMembers(sf: ts.SourceFile, names: readonly string[]): string[] {
  const out: string[] = [];
  for (const stmt of sf.statements) {
    if (!ts.isInterfaceDeclaration(stmt) || !names.includes(stmt.name.text)) continue;
    for (const m of stmt.members) if (m.name) out.push(m.name.getText(sf));
  }
  return out;
}

function handleFindings(sf: ts.SourceFile, rules: ReachRules, surface: ReadonlySet<string>) {
  const findings: ReachFinding[] = [];
  const publicNames = new Set<string>();
  const privateNames: string[] = [];
  const path = rules.handle.module;
  const cls = sf.statements.find((s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === rules.handle.className);
  const members: Array<{ node: ts.Node; name: string; field: boolean; readonly: boolean; hidden: boolean }> = [];
  for (const m of cls?.members ?? []) {
    if (ts.isConstructorDeclaration(m)) {
      for (const p of m.parameters) {
        if (PARAMETER_PROPERTY.some((kind) => hasModifier(p, kind))) members.push({ node: p, name: p.name.getText(sf), field: true, readonly: hasModifier(p, ts.SyntaxKind.ReadonlyKeyword), hidden: isHidden(p) });
      }
    } else if (m.name) {
      members.push({ node: m, name: m.name.getText(sf), field: ts.isPropertyDeclaration(m), readonly: hasModifier(m, ts.SyntaxKind.ReadonlyKeyword), hidden: isHidden(m) });
    }
  }
  for (const m of members) {
    if (m.hidden) {
      privateNames.push(m.name.replace(/^#/, ''));
      continue;
    }
    publicNames.add(m.name);
    const line = lineOf(sf, m.node);
    if (m.field && !m.readonly) findings.push({ path, line, subject: m.name, message: `${rules.handle.className}.${m.name} is a public mutable field: the node's state is changed through named actions only` });
    else if (!surface.has(m.name)) findings.push({ path, line, subject: m.name, message: `${rules.handle.className}.${m.name} is public but not declared by ${rules.view.interfaces.join(', ')}` });
  }
  return { findings, publicNames, privateNames };
}

/** A constructor parameter with one of these is a class property. */
const PARAMETER_PROPERTY = [ts.SyntaxKind.PublicKeyword, ts.SyntaxKind.PrivateKeyword, ts.SyntaxKind.ProtectedKeyword, ts.SyntaxKind.ReadonlyKeyword];

function isHidden(node: ts.Node): boolean {
  const name = (node as { name?: ts.Node }).name;
  return hasModifier(node, ts.SyntaxKind.PrivateKeyword) || hasModifier(node, ts.SyntaxKind.ProtectedKeyword) || (name !== undefined && ts.isPrivateIdentifier(name));
}

function castFindings(path: string, sf: ts.SourceFile, internal: ReadonlySet<string>): ReachFinding[] {
  const found: ReachFinding[] = [];
  const report = (node: ts.Node, name: string, how: string) =>
    found.push({ path, line: lineOf(sf, node), subject: name, message: `reaches the node's ${name} ${how}: outside the node's own modules, use its view and actions` });
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && internal.has(node.name.text) && isCast(node.expression)) report(node, node.name.text, 'through a cast');
    if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression) && internal.has(node.argumentExpression.text)) report(node, node.argumentExpression.text, 'by name');
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function isCast(node: ts.Expression): boolean {
  let e = node;
  while (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
  return ts.isAsExpression(e) || ts.isTypeAssertionExpression(e);
}
