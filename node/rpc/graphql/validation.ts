/**
 * The request checks Besu runs before executing a query, with the errors graphql-java 22.3 (Besu's
 * GraphQL engine) reports, so clients see Besu's messages:
 *
 * - syntax errors: "Invalid syntax with offending token '<token>' at line L column C"
 *   (classification InvalidSyntax; the token is the one graphql-js stopped at, which is usually
 *   graphql-java's offending token);
 * - validation: "Validation error (<ErrorType>@[<field path>]) : <description>" (classification
 *   ValidationError; the path is the field names, and fragment names, from the operation down to
 *   the node). graphql-java's wording is reproduced for the rules a client usually meets: unknown
 *   fields, arguments and types, missing or null required arguments, argument literals a scalar
 *   rejects (WrongType, quoting the literal as graphql-java prints it and the scalar's message),
 *   sub-selections, undefined/unused variables and variable type mismatches, bad variable
 *   defaults. Rarer rules (duplicate names, fragment cycles, conflicting fields, ...) are graphql-js's
 *   with graphql-java's error type and graphql-js's description;
 * - variables: "Variable 'x' has an invalid value: <scalar message>", "Variable 'x' has coerced Null
 *   value for NonNull type 'T!'" (first failure only, as graphql-java throws on it);
 * - query complexity (Besu GraphQLProvider: MaxQueryComplexityInstrumentation, limit 200): every
 *   field costs 1 plus its children, Transaction.block and __Type.fields cost 100 plus their
 *   children, __typename nothing; fields skipped by @skip/@include do not count. Checked after
 *   validation and variable coercion: "maximum query complexity exceeded N > 200"
 *   (classification ExecutionAborted, no locations).
 * (graphql-java: validation/rules/*, ArgumentValidationUtil, ValidationUtil, i18n/Validation.properties,
 * execution/ValuesResolverConversion, analysis/QueryComplexityCalculator.)
 */
import {
  coerceInputValue,
  getDirectiveValues,
  getNamedType,
  getVariableValues,
  GraphQLError,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isInterfaceType,
  isScalarType,
  Kind,
  Lexer,
  SchemaMetaFieldDef,
  Source,
  TypeInfo,
  TypeMetaFieldDef,
  typeFromAST,
  validate,
  visit,
  visitWithTypeInfo,
  ExecutableDefinitionsRule,
  FragmentsOnCompositeTypesRule,
  KnownDirectivesRule,
  KnownFragmentNamesRule,
  LoneAnonymousOperationRule,
  NoFragmentCyclesRule,
  NoUndefinedVariablesRule,
  NoUnusedFragmentsRule,
  NoUnusedVariablesRule,
  OverlappingFieldsCanBeMergedRule,
  PossibleFragmentSpreadsRule,
  SingleFieldSubscriptionsRule,
  UniqueArgumentNamesRule,
  UniqueDirectivesPerLocationRule,
  UniqueFragmentNamesRule,
  UniqueInputFieldNamesRule,
  UniqueOperationNamesRule,
  UniqueVariableNamesRule,
  VariablesAreInputTypesRule,
  VariablesInAllowedPositionRule,
  type ASTNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationRule,
  type ValueNode,
} from 'graphql';
import { javaLiteral, ScalarInputError } from './schema.ts';

/** An error as graphql-java's toSpecification() writes it. */
export interface JavaError {
  message: string;
  locations?: Array<{ line: number; column: number }>;
  path?: Array<string | number>;
  extensions: Record<string, unknown>;
}

function locationOf(node: ASTNode | undefined): Array<{ line: number; column: number }> {
  if (!node?.loc) return [];
  const { line, column } = node.loc.startToken;
  return [{ line, column }];
}

function validationError(message: string, node: ASTNode | undefined): JavaError {
  return { message, locations: locationOf(node), extensions: { classification: 'ValidationError' } };
}

// ---- syntax -------------------------------------------------------------------------------------

/** graphql-java's InvalidSyntaxError for a graphql-js syntax error. */
export function syntaxError(error: GraphQLError, query: string): JavaError {
  const loc = error.locations?.[0];
  const offset = error.positions?.[0];
  if (!loc || offset === undefined) return { message: 'Invalid syntax', extensions: { classification: 'InvalidSyntax' } };
  let token = '<EOF>';
  if (offset < query.length) {
    // the token starting at the error position, as the source spells it
    try {
      const lexer = new Lexer(new Source(query.slice(offset)));
      const t = lexer.advance();
      token = t.kind === '<EOF>' ? '<EOF>' : query.slice(offset, offset + t.end);
    } catch {
      token = query.slice(offset, offset + 1);
    }
  }
  return {
    message: `Invalid syntax with offending token '${token}' at line ${loc.line} column ${loc.column}`,
    locations: [{ line: loc.line, column: loc.column }],
    extensions: { classification: 'InvalidSyntax' },
  };
}

// ---- literal checks (graphql-java ValidationUtil / ArgumentValidationUtil) -----------------------

interface LiteralFailure {
  /** i18n key suffix of ArgumentValidationUtil. */
  kind: 'null' | 'scalar' | 'notObject' | 'missing' | 'extra';
  /** Names from the argument down to the failing value ("data", "[0]"), innermost last. */
  names: string[];
  /** The value quoted in the message (null/scalar failures: the failing value; else the argument's). */
  value?: ValueNode;
  typeName?: string;
  detail?: string;
}

function checkLiteral(value: ValueNode | undefined, type: GraphQLInputType): LiteralFailure | undefined {
  if (value === undefined || value.kind === Kind.NULL) return isNonNullType(type) ? { kind: 'null', names: [], value } : undefined;
  if (value.kind === Kind.VARIABLE) return undefined;
  if (isNonNullType(type)) return checkLiteral(value, type.ofType);
  if (isScalarType(type) || isEnumType(type)) {
    try {
      const parsed = type.parseLiteral(value, undefined);
      if (parsed === undefined) return { kind: 'scalar', names: [], value, typeName: type.name };
      return undefined;
    } catch (e) {
      const detail = e instanceof ScalarInputError ? e.message : (e as Error).message || undefined;
      return { kind: 'scalar', names: [], value, typeName: type.name, detail };
    }
  }
  if (isListType(type)) {
    const item = type.ofType as GraphQLInputType;
    if (value.kind !== Kind.LIST) return checkLiteral(value, item);
    for (let i = 0; i < value.values.length; i++) {
      const f = checkLiteral(value.values[i], item);
      if (f) return { ...f, names: [`[${i}]`, ...f.names] };
    }
    return undefined;
  }
  if (isInputObjectType(type)) {
    if (value.kind !== Kind.OBJECT) return { kind: 'notObject', names: [] };
    const given = new Set(value.fields.map((f) => f.name.value));
    const fields = type.getFields();
    const missing = Object.values(fields)
      .filter((f) => isNonNullType(f.type) && f.defaultValue === undefined && !given.has(f.name))
      .map((f) => f.name);
    if (missing.length > 0) return { kind: 'missing', names: [], detail: `[${missing.join(', ')}]` };
    for (const field of value.fields) {
      const def = fields[field.name.value];
      if (!def) return { kind: 'extra', names: [], typeName: type.name, detail: field.name.value };
      const f = checkLiteral(field.value, def.type);
      if (f) return { ...f, names: [field.name.value, ...f.names] };
    }
  }
  return undefined;
}

function literalMessage(at: string, argName: string, argValue: ValueNode, f: LiteralFailure): string {
  let argument = argName;
  for (const n of f.names) argument += n.startsWith('[') ? n : `.${n}`;
  const quoted = (v: ValueNode | undefined) => (v ? javaLiteral(v) : 'null');
  const head = `Validation error (${at}) : argument '${argument}' with value`;
  switch (f.kind) {
    case 'null':
      return `${head} '${quoted(f.value)}' must not be null`;
    case 'scalar':
      return f.detail === undefined ? `${head} '${quoted(f.value)}' is not a valid '${f.typeName}'` : `${head} '${quoted(f.value)}' is not a valid '${f.typeName}' - ${f.detail}`;
    case 'notObject':
      return `${head} '${quoted(argValue)}' must be an object type`;
    case 'missing':
      return `${head} '${quoted(argValue)}' is missing required fields '${f.detail}'`;
    case 'extra':
      return `${head} '${quoted(argValue)}' contains a field not in '${f.typeName}': '${f.detail}'`;
  }
}

// ---- validation ---------------------------------------------------------------------------------

/** graphql-js rules kept as they are, with the graphql-java error type they correspond to. */
const KEPT_RULES: Array<[ValidationRule, string]> = [
  [ExecutableDefinitionsRule, 'NonExecutableDefinition'],
  [UniqueOperationNamesRule, 'DuplicateOperationName'],
  [LoneAnonymousOperationRule, 'LoneAnonymousOperationViolation'],
  [SingleFieldSubscriptionsRule, 'SubscriptionMultipleRootFields'],
  [FragmentsOnCompositeTypesRule, 'InlineFragmentTypeConditionInvalid'],
  [VariablesAreInputTypesRule, 'NonInputTypeOnVariable'],
  [UniqueFragmentNamesRule, 'DuplicateFragmentName'],
  [KnownFragmentNamesRule, 'UndefinedFragment'],
  [NoUnusedFragmentsRule, 'UnusedFragment'],
  [PossibleFragmentSpreadsRule, 'InvalidFragmentType'],
  [NoFragmentCyclesRule, 'FragmentCycle'],
  [UniqueVariableNamesRule, 'DuplicateVariableName'],
  [KnownDirectivesRule, 'UnknownDirective'],
  [UniqueDirectivesPerLocationRule, 'DuplicateDirectiveName'],
  [UniqueArgumentNamesRule, 'DuplicateArgumentNames'],
  [UniqueInputFieldNamesRule, 'UniqueObjectFieldName'],
  [OverlappingFieldsCanBeMergedRule, 'FieldsConflict'],
];

const VARIABLE_RULES: Array<[ValidationRule, string]> = [
  [NoUndefinedVariablesRule, 'UndefinedVariable'],
  [NoUnusedVariablesRule, 'UnusedVariable'],
  [VariablesInAllowedPositionRule, 'VariableTypeMismatch'],
];

/** An error of a kept graphql-js rule; the variable rules with graphql-java's wording and path. */
function keptRuleError(e: GraphQLError, type: string, variablePaths: Map<ASTNode, string>): JavaError {
  const name = /"\$([^"]+)"/.exec(e.message)?.[1];
  const withPath = (node: ASTNode | undefined, description: string) => {
    const path = node ? variablePaths.get(node) : undefined;
    return validationError(`Validation error (${path ? `${type}@[${path}]` : type}) : ${description}`, node);
  };
  if (type === 'UndefinedVariable' && name) return withPath(e.nodes?.[0], `Undefined variable '${name}'`);
  if (type === 'UnusedVariable' && name) return validationError(`Validation error (UnusedVariable) : Unused variable '${name}'`, e.nodes?.[0]);
  if (type === 'VariableTypeMismatch') {
    const m = /^Variable "\$([^"]+)" of type "([^"]+)" used in position expecting type "([^"]+)"/.exec(e.message);
    const node = e.nodes?.[e.nodes.length - 1];
    if (m) return withPath(node, `Variable '${m[1]}' of type '${m[2]}' used in position expecting type '${m[3]}'`);
  }
  return validationError(`Validation error (${type}) : ${e.message}`, e.nodes?.[0]);
}

/**
 * Validates `doc` as graphql-java does (see the module comment); an empty list when it is valid.
 * graphql-js's FieldsOnCorrectType, ScalarLeafs, KnownArgumentNames, KnownTypeNames,
 * ProvidedRequiredArguments and ValuesOfCorrectType are replaced by graphql-java's versions below.
 */
export function validateDocument(schema: GraphQLSchema, doc: DocumentNode): JavaError[] {
  const errors: JavaError[] = [];
  const typeInfo = new TypeInfo(schema);
  const names: string[] = [];
  /** The query path of every variable reference (for the variable rules below). */
  const variablePaths = new Map<ASTNode, string>();
  const at = (type: string) => (names.length > 0 ? `${type}@[${names.join('/')}]` : type);
  const add = (type: string, description: string, node: ASTNode | undefined) => errors.push(validationError(`Validation error (${at(type)}) : ${description}`, node));

  visit(
    doc,
    visitWithTypeInfo(typeInfo, {
      Field: {
        enter(node) {
          names.push(node.name.value);
          const parent = typeInfo.getParentType();
          const def = typeInfo.getFieldDef();
          if (parent && !def) add('FieldUndefined', `Field '${node.name.value}' in type '${parent.name}' is undefined`, node);
          const type = typeInfo.getType();
          if (type) {
            if (isLeafType(getNamedType(type))) {
              if (node.selectionSet) add('SubselectionNotAllowed', `Subselection not allowed on leaf type '${String(type)}' of field '${node.name.value}'`, node);
            } else if (!node.selectionSet) add('SubselectionRequired', `Subselection required for type '${String(type)}' of field '${node.name.value}'`, node);
          }
          if (def) {
            const given = new Map((node.arguments ?? []).map((a) => [a.name.value, a]));
            for (const arg of def.args) {
              if (!isNonNullType(arg.type) || arg.defaultValue !== undefined) continue;
              const a = given.get(arg.name);
              if (!a) add('MissingFieldArgument', `Missing field argument '${arg.name}'`, node);
              else if (a.value.kind === Kind.NULL) add('NullValueForNonNullArgument', `Null value for non-null field argument '${arg.name}'`, node);
            }
          }
        },
        leave() {
          names.pop();
        },
      },
      FragmentDefinition: {
        enter(node) {
          names.push(node.name.value);
        },
        leave() {
          names.pop();
        },
      },
      Argument(node) {
        const directive = typeInfo.getDirective();
        const argDef = typeInfo.getArgument();
        if (directive) {
          if (!argDef) add('UnknownDirective', `Unknown directive argument '${node.name.value}'`, node);
        } else if (typeInfo.getFieldDef() && !argDef) add('UnknownArgument', `Unknown field argument '${node.name.value}'`, node);
        if (!argDef) return;
        const failure = checkLiteral(node.value, argDef.type);
        if (failure) errors.push(validationError(literalMessage(at('WrongType'), node.name.value, node.value, failure), node));
      },
      NamedType(node) {
        if (!schema.getType(node.name.value)) add('UnknownType', `Unknown type '${node.name.value}'`, node);
      },
      VariableDefinition(node) {
        const type = typeInfo.getInputType();
        if (type && node.defaultValue && checkLiteral(node.defaultValue, type))
          add('BadValueForDefaultArg', `Bad default value '${javaLiteral(node.defaultValue)}' for type '${String(type)}'`, node);
      },
      Variable(node) {
        variablePaths.set(node, names.join('/'));
      },
    }),
  );

  // graphql-js's rules kept (one pass; each error tagged with its rule's graphql-java error type)
  const typeOf = new WeakMap<GraphQLError, string>();
  const tagged = (rule: ValidationRule, type: string): ValidationRule => (context) =>
    rule(
      Object.assign(Object.create(context) as typeof context, {
        reportError(e: GraphQLError) {
          typeOf.set(e, type);
          context.reportError(e);
        },
      }),
    );
  const rules = [...VARIABLE_RULES, ...KEPT_RULES].map(([rule, type]) => tagged(rule, type));
  for (const e of validate(schema, doc, rules)) errors.push(keptRuleError(e, typeOf.get(e) ?? 'ValidationError', variablePaths));
  return errors;
}

// ---- variables ----------------------------------------------------------------------------------

/**
 * graphql-java's variable coercion (ValuesResolverConversion.externalValueToInternalValueForVariables):
 * the first variable that is missing, null where non-null, or rejected by its type, as an error.
 */
export function checkVariables(schema: GraphQLSchema, operation: OperationDefinitionNode, inputs: Record<string, unknown>): JavaError | undefined {
  for (const def of operation.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    const type = typeFromAST(schema, def.type) as GraphQLInputType | undefined;
    if (!type) continue;
    const has = Object.hasOwn(inputs, name);
    const value = inputs[name];
    const fail = (message: string): JavaError => validationError(message, def);
    if (!has && def.defaultValue) continue;
    if (isNonNullType(type) && (!has || value === null || value === undefined)) return fail(`Variable '${name}' has coerced Null value for NonNull type '${String(type)}'`);
    if (!has || value === null) continue;
    let first: string | undefined;
    coerceInputValue(value, type, (path, _invalid, error) => {
      if (first !== undefined) return;
      const original = error.originalError;
      if (original instanceof ScalarInputError) first = original.message;
      else if (/Expected non-nullable type "(.+)" not to be null\./.test(error.message)) {
        const field = path[path.length - 1];
        const t = /Expected non-nullable type "(.+)" not to be null\./.exec(error.message)![1];
        first = typeof field === 'string' ? `Field '${field}' of variable '${name}' has coerced Null value for NonNull type '${t}'` : error.message;
      } else first = error.message;
    });
    if (first !== undefined) return fail(`Variable '${name}' has an invalid value: ${first}`);
  }
  return undefined;
}

// ---- complexity ---------------------------------------------------------------------------------

/** Besu's MAX_COMPLEXITY (GraphQLProvider). */
export const MAX_QUERY_COMPLEXITY = 200;

/** Besu GraphQLProvider.calculateFieldCost: the field's own cost given its parent type. */
function fieldCost(parentType: string, field: string): number {
  if (parentType === 'Transaction' && field === 'block') return 100;
  if (parentType === '__Type' && field === 'fields') return 100;
  return 1;
}

function fieldDefOf(schema: GraphQLSchema, parent: GraphQLCompositeType, name: string): GraphQLField<unknown, unknown> | undefined {
  if (parent === schema.getQueryType()) {
    if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
    if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
  }
  return isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
}

/**
 * The complexity of the operation graphql-java's QueryComplexityCalculator computes with Besu's field
 * costs (a valid document and coerced variables expected).
 */
export function queryComplexity(schema: GraphQLSchema, doc: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown>): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const included = (node: FieldNode | { directives?: FieldNode['directives'] }) => {
    const skip = getDirectiveValues(GraphQLSkipDirective, node, variables);
    if (skip?.if === true) return false;
    const include = getDirectiveValues(GraphQLIncludeDirective, node, variables);
    return include?.if !== false;
  };
  const cost = (set: SelectionSetNode | undefined, parent: GraphQLCompositeType | undefined, seen: Set<string>): number => {
    if (!set || !parent) return 0;
    let total = 0;
    for (const s of set.selections) {
      if (!included(s)) continue;
      if (s.kind === Kind.FIELD) {
        if (s.name.value === '__typename') continue;
        const def = fieldDefOf(schema, parent, s.name.value);
        if (!def) continue;
        const child = getNamedType(def.type);
        const children = cost(s.selectionSet, isCompositeType(child) ? child : undefined, seen);
        total += children + fieldCost(parent.name, s.name.value);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        const t = s.typeCondition ? schema.getType(s.typeCondition.name.value) : parent;
        total += cost(s.selectionSet, t && isCompositeType(t) ? t : undefined, seen);
      } else {
        const f = fragments.get(s.name.value);
        if (!f || seen.has(f.name.value)) continue;
        const t = schema.getType(f.typeCondition.name.value);
        total += cost(f.selectionSet, t && isCompositeType(t) ? t : undefined, new Set([...seen, f.name.value]));
      }
    }
    return total;
  };
  const root = operation.operation === 'mutation' ? schema.getMutationType() : operation.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
  return cost(operation.selectionSet, root ?? undefined, new Set());
}

/** Coerced variable values for the complexity calculation (after checkVariables passed). */
export function coercedVariables(schema: GraphQLSchema, operation: OperationDefinitionNode, inputs: Record<string, unknown>): Record<string, unknown> {
  const r = getVariableValues(schema, operation.variableDefinitions ?? [], inputs);
  return r.coerced ?? {};
}

export function complexityError(complexity: number, max: number): JavaError {
  return { message: `maximum query complexity exceeded ${complexity} > ${max}`, extensions: { classification: 'ExecutionAborted' } };
}
