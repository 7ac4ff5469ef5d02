/**
 * EIP-1767 GraphQL schema as Besu serves it (besu: ethereum/api/src/main/resources/schema.graphqls),
 * with the custom scalars: Long and BigInt serialize as hex quantities, Bytes/Bytes32/Address as
 * 0x-hex data; inputs accept hex strings (Long/BigInt also decimal strings and JSON integers).
 */
import { buildSchema, GraphQLError, Kind, type GraphQLScalarType, type GraphQLSchema, type ValueNode } from 'graphql';

export const SCHEMA_SDL = /* GraphQL */ `
scalar Bytes32
scalar Address
scalar Bytes
scalar BigInt
scalar Long

schema { query: Query mutation: Mutation }

type Account {
  address: Address!
  balance: BigInt!
  transactionCount: Long!
  code: Bytes!
  storage(slot: Bytes32!): Bytes32!
}

type Log {
  index: Long!
  account(block: Long): Account!
  topics: [Bytes32!]!
  data: Bytes!
  transaction: Transaction!
}

type Transaction {
  hash: Bytes32!
  nonce: Long!
  index: Long
  from(block: Long): Account!
  to(block: Long): Account
  value: BigInt!
  gasPrice: BigInt!
  maxFeePerGas: BigInt
  maxPriorityFeePerGas: BigInt
  maxFeePerBlobGas: BigInt
  effectiveTip: BigInt
  gas: Long!
  inputData: Bytes!
  block: Block
  status: Long
  gasUsed: Long
  cumulativeGasUsed: Long
  effectiveGasPrice: BigInt
  createdContract(block: Long): Account
  logs: [Log!]
  r: BigInt!
  s: BigInt!
  v: BigInt!
  yParity: BigInt
  type: Long
  accessList: [AccessTuple!]
  raw: Bytes!
  rawReceipt: Bytes!
  blobVersionedHashes: [Bytes32!]!
}

type AccessTuple {
  address: Address!
  storageKeys: [Bytes32!]!
}

input BlockFilterCriteria {
  addresses: [Address!]
  topics: [[Bytes32!]!]
}

type Block {
  number: Long!
  hash: Bytes32!
  parent: Block
  nonce: Bytes!
  transactionsRoot: Bytes32!
  transactionCount: Long
  stateRoot: Bytes32!
  receiptsRoot: Bytes32!
  miner(block: Long): Account!
  extraData: Bytes!
  gasLimit: Long!
  gasUsed: Long!
  baseFeePerGas: BigInt
  timestamp: Long!
  logsBloom: Bytes!
  mixHash: Bytes32!
  difficulty: BigInt!
  totalDifficulty: BigInt!
  ommerCount: Long
  ommers: [Block]
  ommerAt(index: Long!): Block
  ommerHash: Bytes32!
  transactions: [Transaction!]
  transactionAt(index: Long!): Transaction
  logs(filter: BlockFilterCriteria!): [Log!]!
  account(address: Address!): Account!
  call(data: CallData!): CallResult
  estimateGas(data: CallData!): Long!
  rawHeader: Bytes!
  raw: Bytes!
}

input CallData {
  from: Address
  to: Address
  gas: Long
  gasPrice: BigInt
  maxFeePerGas: BigInt
  maxPriorityFeePerGas: BigInt
  value: BigInt
  data: Bytes
}

type CallResult {
  data: Bytes!
  gasUsed: Long!
  status: Long!
}

input FilterCriteria {
  fromBlock: Long
  toBlock: Long
  addresses: [Address!]
  topics: [[Bytes32!]!]
}

type SyncState {
  startingBlock: Long!
  currentBlock: Long!
  highestBlock: Long!
}

type Pending {
  transactionCount: Long!
  transactions: [Transaction!]
  account(address: Address!): Account!
  call(data: CallData!): CallResult
  estimateGas(data: CallData!): Long!
}

type Query {
  block(number: Long, hash: Bytes32): Block
  blocks(from: Long, to: Long): [Block!]!
  pending: Pending!
  transaction(hash: Bytes32!): Transaction
  logs(filter: FilterCriteria!): [Log!]!
  gasPrice: BigInt!
  maxPriorityFeePerGas: BigInt!
  syncing: SyncState
  chainID: BigInt!
  protocolVersion: Int!
}

type Mutation {
  sendRawTransaction(data: Bytes!): Bytes32!
}
`;

const HEX = /^0x[0-9a-fA-F]*$/;

function hexData(kind: string, bytes?: number) {
  const check = (v: unknown): string => {
    if (typeof v !== 'string' || !HEX.test(v) || v.length % 2 !== 0) throw new GraphQLError(`Invalid ${kind} value`);
    if (bytes !== undefined && v.length !== 2 + bytes * 2) throw new GraphQLError(`Invalid ${kind} value: expected ${bytes} bytes`);
    return v.toLowerCase();
  };
  return {
    serialize: (v: unknown) => check(v),
    parseValue: (v: unknown) => check(v),
    parseLiteral: (ast: ValueNode) => {
      if (ast.kind !== Kind.STRING) throw new GraphQLError(`Invalid ${kind} literal`);
      return check(ast.value);
    },
  };
}

function toBig(kind: string, v: unknown, max?: bigint): bigint {
  let n: bigint;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number' && Number.isSafeInteger(v)) n = BigInt(v);
  else if (typeof v === 'string' && (/^0x[0-9a-fA-F]+$/.test(v) || /^[0-9]+$/.test(v))) n = BigInt(v);
  else throw new GraphQLError(`Invalid ${kind} value`);
  if (n < 0n || (max !== undefined && n > max)) throw new GraphQLError(`Invalid ${kind} value: out of range`);
  return n;
}

function quantity(kind: string, max?: bigint) {
  return {
    serialize: (v: unknown) => '0x' + toBig(kind, v, max).toString(16),
    parseValue: (v: unknown) => toBig(kind, v, max),
    parseLiteral: (ast: ValueNode) => {
      if (ast.kind === Kind.INT || ast.kind === Kind.STRING) return toBig(kind, ast.value, max);
      throw new GraphQLError(`Invalid ${kind} literal`);
    },
  };
}

/** The schema with its scalars wired (resolvers are applied by the handler's field resolver). */
export function buildEthSchema(): GraphQLSchema {
  const schema = buildSchema(SCHEMA_SDL);
  const scalars: Record<string, object> = {
    Bytes32: hexData('Bytes32', 32),
    Address: hexData('Address', 20),
    Bytes: hexData('Bytes'),
    BigInt: quantity('BigInt'),
    Long: quantity('Long', (1n << 64n) - 1n),
  };
  for (const [name, impl] of Object.entries(scalars)) Object.assign(schema.getType(name) as GraphQLScalarType, impl);
  return schema;
}
