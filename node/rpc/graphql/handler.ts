/**
 * EIP-1767 GraphQL over a NodeApi, answering as Besu does (besu: ethereum/api/.../graphql/
 * GraphQLHttpService.java, GraphQLProvider.java; engine graphql-java 22.3).
 *
 * HTTP (GraphQLHttpService.handleGraphQLRequest): GET ?query=&operationName=&variables=; POST with
 * application/json {query, variables, operationName}; any other POST content type is the raw query
 * (application/graphql). Other methods: 405. Status: 200 when the result has no errors, 400 when it
 * has some (syntax, validation, variables, complexity, execution; the body keeps `data` when
 * execution ran); 400 for an undecodable JSON body. Beyond Besu: a mutation over GET is refused
 * with 405 (mutationOverGet).
 *
 * The request runs graphql-java's stages in its order, with its error shapes (validation.ts):
 * parse -> validate -> variable coercion -> query complexity (Besu: at most 200) -> execution.
 * Execution errors are graphql-java's: a resolver's exception is "Exception while fetching data
 * (/block/account) : <message>" (classification DataFetchingException, plus Besu's errorCode and
 * errorMessage for its GraphQLException), a null in a non-null field is graphql-java's
 * NonNullableFieldWasNullError, a value a scalar cannot serialize "Can't serialize value (...)".
 * Fields resolve as Besu's adapters do (resolvers.ts).
 *
 * Parsing has graphql-java's limits against hostile queries, which Besu keeps (GraphQLProvider
 * sets no ParserOptions, so graphql-java 22.3 ParserOptions.getDefaultOperationParserOptions
 * applies): at most 1 MiB of characters (MAX_QUERY_CHARACTERS = 1024 * 1024), 15,000 grammar
 * tokens and as many comments (MAX_QUERY_TOKENS), 200,000 whitespace tokens (MAX_WHITESPACE_TOKENS;
 * each space, tab, comma, CR or LF is one) and grammar rules nested 500 deep (MAX_RULE_DEPTH).
 * Past one, parsing stops (graphql-java Parser, SafeTokenReader, SafeTokenSource) and the answer is
 * 400 with one InvalidSyntax error, nothing executed: "More than 15,000 'grammar' tokens have been
 * presented. To prevent Denial Of Service attacks, parsing has been cancelled." at the offending
 * token (i18n/Parsing.properties ParseCancelled.*; MessageFormat groups the number, as in an
 * English locale). See `parseWithLimits` for how closely this follows graphql-java.
 */
import {
  execute,
  getNullableType,
  getOperationAST,
  GraphQLError,
  isListType,
  isObjectType,
  Kind,
  Lexer,
  parse,
  Source,
  TokenKind,
  type ArgumentNode,
  type ConstValueNode,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type GraphQLFieldResolver,
  type GraphQLSchema,
  type NamedTypeNode,
  type NameNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type Token,
  type TypeNode,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';
import type { NodeApi } from '../node-api.ts';
import { checkPoint } from '../off-loop/pause.ts';
import { buildEthSchema, ScalarOutputError } from './schema.ts';
import { buildResolvers, FetchError } from './resolvers.ts';
import { checkVariables, coercedVariables, complexityError, MAX_QUERY_COMPLEXITY, queryComplexity, syntaxError, validateDocument, type JavaError } from './validation.ts';
import type { GraphqlRequest, GraphqlResponse } from '../transports/graphql-http.ts';

export type { GraphqlRequest, GraphqlResponse };
export type { JavaError };
export interface GraphqlHandlerOptions {
  /** Besu GraphQLProvider.MAX_COMPLEXITY: 200 (field costs in validation.ts). */
  maxQueryComplexity?: number;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** graphql-java's ResultPath.toString(): "/blocks[0]/number". */
function resultPath(path: ReadonlyArray<string | number>): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `/${p}`)).join('');
}

/** A graphql-js execution error as graphql-java reports the same failure. */
export function executionError(schema: GraphQLSchema, e: GraphQLError): JavaError {
  const path = [...(e.path ?? [])];
  const at = resultPath(path);
  const locations = e.locations?.map(({ line, column }) => ({ line, column }));
  const original = e.originalError;
  if (original instanceof ScalarOutputError) {
    return { message: `Can't serialize value (${at}) : ${original.message}`, path, extensions: { classification: 'DataFetchingException' } };
  }
  if (original) {
    const extensions: Record<string, unknown> =
      original instanceof FetchError && original.code !== undefined ? { errorCode: original.code, errorMessage: original.message } : {};
    extensions.classification = 'DataFetchingException';
    return { message: `Exception while fetching data (${at}) : ${original.message}`, locations, path, extensions };
  }
  const nonNull = /^Cannot return null for non-nullable field (\w+)\.(\w+)\.$/.exec(e.message);
  if (nonNull) {
    const parent = schema.getType(nonNull[1]);
    const field = isObjectType(parent) ? parent.getFields()[nonNull[2]] : undefined;
    let type = field ? String(getNullableType(field.type)) : nonNull[2];
    let parentName = nonNull[1];
    if (field && typeof path[path.length - 1] === 'number') {
      // a null list item: the item type within the list type
      const list = getNullableType(field.type);
      parentName = String(list);
      if (isListType(list)) type = String(getNullableType(list.ofType));
    }
    return {
      message:
        `The field at path '${at}' was declared as a non null type, but the code involved in retrieving data has wrongly returned a null value.  ` +
        'The graphql specification requires that the parent field be set to null, or if that is non nullable that it bubble up null to its parent and so on. ' +
        `The non-nullable type is '${type}' within parent type '${parentName}'`,
      path,
      extensions: { classification: 'NullValueInNonNullableField' },
    };
  }
  return { message: e.message, locations, path, extensions: { classification: 'DataFetchingException' } };
}

// ---- parser limits (graphql-java ParserOptions defaults) -----------------------------------------

export const MAX_QUERY_CHARACTERS = 1024 * 1024;
export const MAX_QUERY_TOKENS = 15_000;
export const MAX_WHITESPACE_TOKENS = 200_000;
export const MAX_RULE_DEPTH = 500;
/**
 * Bracket nesting past which the source is not given to graphql-js, whose recursive parser runs
 * out of stack somewhere past 1,000; such a nesting is over MAX_RULE_DEPTH anyway (each bracket
 * enters at least one rule).
 */
const MAX_PARSED_NESTING = MAX_RULE_DEPTH;

const CANCELLED = 'To prevent Denial Of Service attacks, parsing has been cancelled.';
const grouped = (n: number): string => n.toLocaleString('en-US');

/** ANTLR's position of a source offset: lines end at LF only, columns count code points. */
function antlrLocation(query: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = query.indexOf('\n'); i >= 0 && i < offset; i = query.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  let column = 1;
  for (let i = lineStart; i < offset; i++) {
    const c = query.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < offset) i++;
    column++;
  }
  return { line, column };
}

function cancelledAt(query: string, offset: number, message: string): JavaError {
  return { message, locations: [antlrLocation(query, offset)], extensions: { classification: 'InvalidSyntax' } };
}

const tooDeep = (query: string, offset: number): JavaError =>
  cancelledAt(query, offset, `More than ${grouped(MAX_RULE_DEPTH)} deep 'grammar' rules have been entered. ${CANCELLED}`);

const CLOSERS: Partial<Record<TokenKind, string>> = { [TokenKind.BRACE_L]: '}', [TokenKind.BRACKET_L]: ']', [TokenKind.PAREN_L]: ')' };
const OPENED_BY: Partial<Record<TokenKind, TokenKind>> = { [TokenKind.BRACE_R]: TokenKind.BRACE_L, [TokenKind.BRACKET_R]: TokenKind.BRACKET_L, [TokenKind.PAREN_R]: TokenKind.PAREN_L };

/**
 * Where a scan stopped, with what completes the source before it: the closers of the brackets
 * open there (innermost first), after a `null` when it stopped right after a ':'.
 */
interface Cut {
  offset: number;
  closers: string;
}

interface QueryScan {
  /** The first token count passed, in source order (graphql-java's lexer counts as it reads). */
  overrun?: Cut & { message: string; nonEofTokensBefore: number };
  /** The first opening bracket nested deeper than MAX_PARSED_NESTING (too deep for graphql-js to parse). */
  tooNested?: Cut & { halfwayOffset: number };
}

/**
 * Counts tokens as graphql-java's SafeTokenSource does, per channel: grammar tokens (EOF
 * included), comments, and whitespace characters. Stops at the first count over its limit, at
 * too deep a bracket nesting, or at a lexing error (which the parser then reports).
 */
function scanQuery(query: string): QueryScan {
  const lexer = new Lexer(new Source(query));
  const open: TokenKind[] = [];
  /** The last grammar token passed. */
  let previous: Token = lexer.token;
  const closers = (): string => (previous.kind === TokenKind.COLON ? ' null ' : ' ') + open.map((k) => CLOSERS[k]).reverse().join('');
  let grammar = 0;
  let comments = 0;
  let whitespace = 0;
  let halfwayOffset = -1;
  let last: Token = lexer.token;
  const overrun = (offset: number, limit: number, channel: string, nonEofTokensBefore: number): QueryScan => ({
    overrun: { offset, closers: closers(), nonEofTokensBefore, message: `More than ${grouped(limit)} '${channel}' tokens have been presented. ${CANCELLED}` },
  });
  for (;;) {
    let next: Token;
    try {
      next = lexer.advance();
    } catch {
      return {};
    }
    for (let token = last; token !== next; ) {
      const following = token.next!;
      const gap = following.start - token.end; // ignored characters only: each a whitespace token
      if (whitespace + gap > MAX_WHITESPACE_TOKENS) return overrun(token.end + (MAX_WHITESPACE_TOKENS - whitespace), MAX_WHITESPACE_TOKENS, 'whitespace', grammar);
      whitespace += gap;
      if (following.kind === TokenKind.COMMENT) {
        if (++comments > MAX_QUERY_TOKENS) return overrun(following.start, MAX_QUERY_TOKENS, 'comments', grammar);
      } else if (++grammar > MAX_QUERY_TOKENS) {
        return overrun(following.start, MAX_QUERY_TOKENS, 'grammar', grammar - 1);
      } else if (following !== next) {
        previous = following;
      }
      token = following;
    }
    if (next.kind === TokenKind.EOF) return {};
    if (CLOSERS[next.kind] !== undefined) {
      if (open.length === MAX_PARSED_NESTING) return { tooNested: { offset: next.start, closers: closers(), halfwayOffset } };
      previous = next;
      open.push(next.kind);
      if (open.length === MAX_PARSED_NESTING / 2 + 1 && halfwayOffset < 0) halfwayOffset = next.start;
    } else {
      const opener = OPENED_BY[next.kind];
      if (opener !== undefined && open[open.length - 1] === opener) open.pop();
      previous = next;
    }
    last = next;
  }
}

/**
 * The first grammar rule graphql-java's ANTLR parser (Graphql.g4, GraphqlOperation.g4,
 * GraphqlCommon.g4) enters deeper than MAX_RULE_DEPTH, as the offset of its first token; from the
 * graphql-js AST, rule by rule in the order ANTLR enters them (document is depth 1). Definitions
 * other than operations and fragments (SDL, which validation refuses anyway) are not followed.
 */
export function firstTooDeepRule(doc: DocumentNode): number | undefined {
  let hit: number | undefined;
  const enter = (depth: number, offset: number): boolean => {
    if (depth > MAX_RULE_DEPTH) hit ??= offset;
    return hit !== undefined;
  };
  const start = (node: { loc?: { start: number } }): number => node.loc?.start ?? 0;
  /** The token before a node's first (the '(' of arguments, the 'on' of a type condition, ...). */
  const before = (node: { loc?: { startToken: Token } }): number => {
    let t = node.loc?.startToken.prev;
    while (t && t.kind === TokenKind.COMMENT) t = t.prev;
    return t?.start ?? 0;
  };
  // name : baseName | BooleanValue | NullValue | ON_KEYWORD
  const name = (d: number, n: NameNode): boolean => enter(d, start(n)) || (!['true', 'false', 'null', 'on'].includes(n.value) && enter(d + 1, start(n)));
  // fragmentName : baseName | BooleanValue | NullValue
  const fragmentName = (d: number, n: NameNode): boolean => enter(d, start(n)) || (!['true', 'false', 'null'].includes(n.value) && enter(d + 1, start(n)));
  const typeName = (d: number, t: NamedTypeNode): boolean => enter(d, start(t)) || name(d + 1, t.name);
  const listOrNamed = (d: number, t: TypeNode): boolean =>
    t.kind === Kind.NAMED_TYPE ? typeName(d, t) : t.kind === Kind.LIST_TYPE ? enter(d, start(t)) || type(d + 1, t.type) : false;
  // type : typeName | listType | nonNullType; nonNullType : typeName '!' | listType '!'
  const type = (d: number, t: TypeNode): boolean => enter(d, start(t)) || (t.kind === Kind.NON_NULL_TYPE ? enter(d + 1, start(t)) || listOrNamed(d + 2, t.type) : listOrNamed(d + 1, t));
  // value (and valueWithVariable): scalars are tokens; enumValue : enumValueName; enumValueName : baseName | ON_KEYWORD
  const value = (d: number, v: ValueNode | ConstValueNode): boolean => {
    if (enter(d, start(v))) return true;
    switch (v.kind) {
      case Kind.VARIABLE:
        return enter(d + 1, start(v)) || name(d + 2, v.name);
      case Kind.ENUM:
        return enter(d + 1, start(v)) || enter(d + 2, start(v)) || (v.value !== 'on' && enter(d + 3, start(v)));
      case Kind.LIST:
        return enter(d + 1, start(v)) || v.values.some((item) => value(d + 2, item));
      case Kind.OBJECT:
        return enter(d + 1, start(v)) || v.fields.some((f) => enter(d + 2, start(f)) || name(d + 3, f.name) || value(d + 3, f.value));
      default:
        return false;
    }
  };
  const args = (d: number, list: readonly ArgumentNode[] | undefined): boolean =>
    !!list && list.length > 0 && (enter(d, before(list[0]!)) || list.some((a) => enter(d + 1, start(a)) || name(d + 2, a.name) || value(d + 2, a.value)));
  const directives = (d: number, list: readonly DirectiveNode[] | undefined): boolean =>
    !!list && list.length > 0 && (enter(d, start(list[0]!)) || list.some((x) => enter(d + 1, start(x)) || name(d + 2, x.name) || args(d + 2, x.arguments)));
  const field = (d: number, f: FieldNode): boolean =>
    enter(d, start(f)) ||
    (f.alias !== undefined && (enter(d + 1, start(f.alias)) || name(d + 2, f.alias))) ||
    name(d + 1, f.name) ||
    args(d + 1, f.arguments) ||
    directives(d + 1, f.directives) ||
    (f.selectionSet !== undefined && selectionSet(d + 1, f.selectionSet));
  const selectionSet = (d: number, set: SelectionSetNode): boolean =>
    enter(d, start(set)) ||
    set.selections.some((sel) => {
      if (enter(d + 1, start(sel))) return true;
      if (sel.kind === Kind.FIELD) return field(d + 2, sel);
      if (sel.kind === Kind.FRAGMENT_SPREAD) return enter(d + 2, start(sel)) || fragmentName(d + 3, sel.name) || directives(d + 3, sel.directives);
      return (
        enter(d + 2, start(sel)) ||
        (sel.typeCondition !== undefined && (enter(d + 3, before(sel.typeCondition)) || typeName(d + 4, sel.typeCondition))) ||
        directives(d + 3, sel.directives) ||
        selectionSet(d + 3, sel.selectionSet)
      );
    });
  const variableDefinitions = (d: number, list: readonly VariableDefinitionNode[] | undefined): boolean =>
    !!list &&
    list.length > 0 &&
    (enter(d, before(list[0]!)) ||
      list.some(
        (v) =>
          enter(d + 1, start(v)) ||
          enter(d + 2, start(v.variable)) ||
          name(d + 3, v.variable.name) ||
          type(d + 2, v.type) ||
          (v.defaultValue !== undefined && (enter(d + 2, before(v.defaultValue)) || value(d + 3, v.defaultValue))) ||
          directives(d + 2, v.directives),
      ));
  doc.definitions.some((def) => {
    if (enter(2, start(def))) return true;
    if (def.kind === Kind.OPERATION_DEFINITION) {
      if (enter(3, start(def))) return true;
      if (def.loc?.startToken.kind === TokenKind.BRACE_L) return selectionSet(4, def.selectionSet); // the { ... } shorthand
      return (
        enter(4, start(def)) ||
        (def.name !== undefined && name(4, def.name)) ||
        variableDefinitions(4, def.variableDefinitions) ||
        directives(4, def.directives) ||
        selectionSet(4, def.selectionSet)
      );
    }
    if (def.kind === Kind.FRAGMENT_DEFINITION) {
      return (
        enter(3, start(def)) ||
        fragmentName(4, def.name) ||
        enter(4, before(def.typeCondition)) ||
        typeName(5, def.typeCondition) ||
        directives(4, def.directives) ||
        selectionSet(4, def.selectionSet)
      );
    }
    return false;
  });
  return hit;
}

/** The first rule too deep among those entered before `cut` (the source up to it, its brackets closed), when that much parses. */
function tooDeepBefore(query: string, cut: Cut): number | undefined {
  let doc: DocumentNode;
  try {
    doc = parse(query.slice(0, cut.offset) + cut.closers, { maxTokens: MAX_QUERY_TOKENS });
  } catch {
    return undefined;
  }
  const offset = firstTooDeepRule(doc);
  return offset !== undefined && offset < cut.offset ? offset : undefined;
}

/** A graphql-js syntax error before `offset` (one graphql-java would report first), else undefined. */
function syntaxErrorBefore(query: string, offset: number, maxTokens: number): JavaError | undefined {
  try {
    parse(query, { maxTokens });
  } catch (e) {
    if (e instanceof GraphQLError && (e.positions?.[0] ?? offset) < offset && !e.message.startsWith('Syntax Error: Document contains more')) return syntaxError(e, query);
  }
  return undefined;
}

/**
 * The document, or the error graphql-java's parser gives for the query: a parser limit passed
 * (the first in source order), or a syntax error. Where graphql-java's order of detection cannot
 * be read off graphql-js exactly, an error before the point a limit is passed wins: a syntax error
 * is reported when graphql-js finds it before that point, a too deep rule when the source up to
 * that point parses with its brackets closed (otherwise the limit passed; and for nesting beyond
 * graphql-js's reach with no such parse, the depth error is placed at the bracket halfway there).
 * A syntax error found in a complete parse wins over a too deep rule after it.
 */
export function parseWithLimits(query: string): DocumentNode | JavaError {
  if (query.length > MAX_QUERY_CHARACTERS) {
    // ParseCancelledTooManyCharsException has no location: "locations" is empty.
    return { message: `More than ${grouped(MAX_QUERY_CHARACTERS)} characters have been presented. ${CANCELLED}`, locations: [], extensions: { classification: 'InvalidSyntax' } };
  }
  const scan = scanQuery(query);
  if (scan.overrun) {
    const deep = tooDeepBefore(query, scan.overrun);
    if (deep !== undefined) return tooDeep(query, deep);
    return syntaxErrorBefore(query, scan.overrun.offset, scan.overrun.nonEofTokensBefore) ?? cancelledAt(query, scan.overrun.offset, scan.overrun.message);
  }
  if (scan.tooNested) {
    const deep = tooDeepBefore(query, scan.tooNested);
    if (deep !== undefined) return tooDeep(query, deep);
    const prefix = query.slice(0, scan.tooNested.offset);
    return syntaxErrorBefore(prefix, scan.tooNested.offset, MAX_QUERY_TOKENS) ?? tooDeep(query, scan.tooNested.halfwayOffset);
  }
  let doc: DocumentNode;
  try {
    doc = parse(query, { maxTokens: MAX_QUERY_TOKENS });
  } catch (e) {
    if (e instanceof GraphQLError) return syntaxError(e, query);
    throw e;
  }
  const deep = firstTooDeepRule(doc);
  return deep === undefined ? doc : tooDeep(query, deep);
}

function respond(status: number, payload: unknown): GraphqlResponse {
  return { status, body: JSON.stringify(payload), contentType: JSON_TYPE };
}

function failed(errors: JavaError[]): GraphqlResponse {
  return respond(400, { errors });
}

/**
 * A mutation chosen by a GET is refused before it runs. Besu runs it (GraphQLHttpService reads
 * GET's query parameter and executes whatever operation it names), so a page the operator opens
 * could send transactions with a plain link or image, which carry no Origin for the CORS check.
 * The status is the GraphQL-over-HTTP spec's for this case, 405 with Allow: POST; the body is
 * a graphql-java error.
 */
function mutationOverGet(operation: OperationDefinitionNode): GraphqlResponse {
  const error: JavaError = { message: 'Mutations are not allowed over GET: send them with POST', extensions: { classification: 'OperationNotSupported' } };
  if (operation.loc) error.locations = [{ line: operation.loc.startToken.line, column: operation.loc.startToken.column }];
  return { ...respond(405, { errors: [error] }), headers: { Allow: 'POST' } };
}

export function createGraphqlHandler(api: NodeApi, opts: GraphqlHandlerOptions = {}): (request: GraphqlRequest) => Promise<GraphqlResponse> {
  const schema = buildEthSchema();
  const resolvers = buildResolvers(api);
  const maxComplexity = opts.maxQueryComplexity ?? MAX_QUERY_COMPLEXITY;
  const fieldResolver: GraphQLFieldResolver<unknown, unknown> = (source, args, _ctx, info) => {
    if (info.fieldName === '__typename') return info.parentType.name;
    const r = resolvers[info.parentType.name]?.[info.fieldName];
    // a field without a fetcher answers null, as graphql-java's PropertyDataFetcher on a missing getter
    if (!r) return null;
    // A wide query gives the event loop a turn now and then, and stops once its request is given up.
    const paused = checkPoint(api.pause);
    return paused ? paused.then(() => r(source, args)) : r(source, args);
  };

  return async (request) => {
    let query: string;
    let operationName: string | null = null;
    let variables: Record<string, unknown> = {};
    try {
      if (request.method === 'GET') {
        query = request.query?.query ?? '';
        operationName = request.query?.operationName ?? null;
        if (request.query?.variables !== undefined) variables = JSON.parse(request.query.variables) ?? {};
      } else if (request.method === 'POST') {
        const body = (request.body ?? '').trim();
        if ((request.contentType ?? '').split(';')[0].trim().toLowerCase() === 'application/json') {
          const json = JSON.parse(body);
          if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new SyntaxError('Invalid JSON request');
          query = typeof json.query === 'string' ? json.query : '';
          operationName = typeof json.operationName === 'string' ? json.operationName : null;
          variables = json.variables && typeof json.variables === 'object' ? json.variables : {};
        } else query = body;
      } else {
        return { status: 405, body: '', contentType: JSON_TYPE };
      }
    } catch (e) {
      return respond(400, { errors: [{ message: (e as Error).message }] });
    }

    const parsed = parseWithLimits(query);
    if (!('kind' in parsed)) return failed([parsed]);
    const doc = parsed;
    const invalid = validateDocument(schema, doc);
    if (invalid.length > 0) return failed(invalid);

    const operation = getOperationAST(doc, operationName);
    if (!operation) {
      const message = operationName ? `Unknown operation named '${operationName}'.` : 'Must provide operation name if query contains multiple operations.';
      return failed([{ message, extensions: { classification: 'ValidationError' } }]);
    }
    if (request.method === 'GET' && operation.operation === 'mutation') return mutationOverGet(operation);
    const badVariable = checkVariables(schema, operation, variables);
    if (badVariable) return failed([badVariable]);
    const complexity = queryComplexity(schema, doc, operation, coercedVariables(schema, operation, variables));
    if (complexity > maxComplexity) return failed([complexityError(complexity, maxComplexity)]);

    try {
      const result = await execute({ schema, document: doc, rootValue: {}, variableValues: variables, operationName, fieldResolver });
      const out: Record<string, unknown> = {};
      if (result.errors && result.errors.length > 0) out.errors = result.errors.map((e) => executionError(schema, e));
      if (result.data !== undefined) out.data = result.data;
      return respond(out.errors ? 400 : 200, out);
    } catch (e) {
      return respond(500, { errors: [{ message: (e as Error).message }] });
    }
  };
}
