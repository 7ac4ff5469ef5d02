/**
 * EIP-1767 GraphQL over a NodeApi, answering as Besu does (besu: ethereum/api/.../graphql/
 * GraphQLHttpService.java, GraphQLProvider.java; engine graphql-java 22.3).
 *
 * HTTP (GraphQLHttpService.handleGraphQLRequest): GET ?query=&operationName=&variables=; POST with
 * application/json {query, variables, operationName}; any other POST content type is the raw query
 * (application/graphql). Other methods: 405. Status: 200 when the result has no errors, 400 when it
 * has some (syntax, validation, variables, complexity, execution; the body keeps `data` when
 * execution ran); 400 for an undecodable JSON body.
 *
 * The request runs graphql-java's stages in its order, with its error shapes (validation.ts):
 * parse -> validate -> variable coercion -> query complexity (Besu: at most 200) -> execution.
 * Execution errors are graphql-java's: a resolver's exception is "Exception while fetching data
 * (/block/account) : <message>" (classification DataFetchingException, plus Besu's errorCode and
 * errorMessage for its GraphQLException), a null in a non-null field is graphql-java's
 * NonNullableFieldWasNullError, a value a scalar cannot serialize "Can't serialize value (...)".
 * Fields resolve as Besu's adapters do (resolvers.ts).
 */
import {
  execute,
  getNullableType,
  getOperationAST,
  GraphQLError,
  isListType,
  isObjectType,
  parse,
  type DocumentNode,
  type GraphQLFieldResolver,
  type GraphQLSchema,
} from 'graphql';
import type { NodeApi } from '../node-api.ts';
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

function respond(status: number, payload: unknown): GraphqlResponse {
  return { status, body: JSON.stringify(payload), contentType: JSON_TYPE };
}

function failed(errors: JavaError[]): GraphqlResponse {
  return respond(400, { errors });
}

export function createGraphqlHandler(api: NodeApi, opts: GraphqlHandlerOptions = {}): (request: GraphqlRequest) => Promise<GraphqlResponse> {
  const schema = buildEthSchema();
  const resolvers = buildResolvers(api);
  const maxComplexity = opts.maxQueryComplexity ?? MAX_QUERY_COMPLEXITY;
  const fieldResolver: GraphQLFieldResolver<unknown, unknown> = (source, args, _ctx, info) => {
    if (info.fieldName === '__typename') return info.parentType.name;
    const r = resolvers[info.parentType.name]?.[info.fieldName];
    // a field without a fetcher answers null, as graphql-java's PropertyDataFetcher on a missing getter
    return r ? r(source, args) : null;
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

    let doc: DocumentNode;
    try {
      doc = parse(query);
    } catch (e) {
      if (e instanceof GraphQLError) return failed([syntaxError(e, query)]);
      throw e;
    }
    const invalid = validateDocument(schema, doc);
    if (invalid.length > 0) return failed(invalid);

    const operation = getOperationAST(doc, operationName);
    if (!operation) {
      const message = operationName ? `Unknown operation named '${operationName}'.` : 'Must provide operation name if query contains multiple operations.';
      return failed([{ message, extensions: { classification: 'ValidationError' } }]);
    }
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
