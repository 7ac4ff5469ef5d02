/**
 * EIP-1767 GraphQL schema with the shape Besu serves (besu: ethereum/api/src/main/resources/
 * schema.graphqls, snapshot 3fd224e2; descriptions are not reproduced) and Besu's custom scalars
 * (besu: ethereum/api/.../graphql/internal/Scalars.java).
 *
 * Scalars, as Besu parses them (messages are graphql-java's, built from Besu's coercing classes):
 * - Bytes, Bytes32, Hash, LogTopic, VersionedHash: strings that must start with "0x" (else
 *   "<Name> value '<s>' is not prefixed with 0x"), hex read leniently (an odd number of digits gets
 *   a leading 0); the 32-byte kinds are left-padded with zeros and reject more than 32 bytes.
 * - Address: exactly 20 bytes of hex, "0x" optional (Address.fromHexStringStrict).
 * - Long: a Java long. Literals: an integer (wrapping at 64 bits), a "0x" hex string of at most 8
 *   bytes (read unsigned into the long) or a decimal string (Long.parseLong: signed, range checked).
 * - BigInt: output "0x"-hex. Input: integers, "0x"-hex strings and decimal strings as the schema
 *   describes them.
 *   Deliberate differences (where Besu fails in ways not worth copying): Besu reads a BigInt string
 *   without "0x" as hex, and its BigInt inputs reach CallData as strings that the call then fails
 *   to cast (so every call with gasPrice/value/maxFeePerGas fails there); a Long string of more
 *   than 8 bytes or bad hex, or an unprefixed Bytes variable, escapes Besu's coercing as a plain
 *   exception. Here all of these are ordinary coercion errors, and BigInt inputs work.
 * Values inside the node: Long and BigInt as bigint; byte strings as lowercase 0x-hex of their
 * exact width.
 */
import { buildSchema, GraphQLError, Kind, type GraphQLScalarType, type GraphQLSchema, type ValueNode } from 'graphql';
import { bytesToHex, type Hex } from '../../crypto/bytes.ts';
import { parseJavaInteger } from '../transports/health.ts';

export const SCHEMA_SDL = /* GraphQL */ `
type AccessTuple {
  address: Address!
  storageKeys: [Bytes32!]!
}

type Account {
  address: Address!
  balance: BigInt!
  transactionCount: Long!
  code: Bytes!
  storage(slot: Bytes32!): Bytes32!
}

scalar Address

scalar BigInt

type Block {
  number: Long!
  hash: Hash!
  parent: Block
  nonce: Bytes!
  transactionsRoot: Hash!
  transactionCount: Long
  stateRoot: Hash!
  receiptsRoot: Hash!
  miner(block: Long): Account!
  extraData: Bytes!
  gasLimit: Long!
  gasUsed: Long!
  baseFeePerGas: BigInt
  nextBaseFeePerGas: BigInt
  timestamp: Long!
  logsBloom: Bytes!
  mixHash: Hash!
  difficulty: BigInt!
  totalDifficulty: BigInt!
  ommerCount: Long
  ommers: [Block]
  ommerAt(index: Long!): Block
  ommerHash: Hash!
  transactions: [Transaction!]
  transactionAt(index: Long!): Transaction
  logs(filter: BlockFilterCriteria!): [Log!]!
  account(address: Address!): Account!
  call(data: CallData!): CallResult
  estimateGas(data: CallData!): Long!
  rawHeader: Bytes!
  raw: Bytes!
  withdrawalsRoot: Hash
  withdrawals: [Withdrawal!]
  blobGasUsed: Long
  excessBlobGas: Long
}

input BlockFilterCriteria {
  addresses: [Address!]
  topics: [[LogTopic!]!]
}

scalar Bytes

scalar Bytes32

scalar Hash

scalar LogTopic

scalar VersionedHash

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
  topics: [[LogTopic!]!]
}

type Log {
  index: Long!
  account(block: Long): Account!
  topics: [LogTopic!]!
  data: Bytes!
  transaction: Transaction!
}

scalar Long

type Mutation {
  sendRawTransaction(data: Bytes!): Bytes32!
}

type Pending {
  transactionCount: Long!
  transactions: [Transaction!]
  account(address: Address!): Account!
  call(data: CallData!): CallResult
  estimateGas(data: CallData!): Long!
}

type Query {
  block(number: Long, hash: Hash): Block
  blocks(from: Long, to: Long): [Block!]!
  pending: Pending!
  transaction(hash: Hash!): Transaction
  logs(filter: FilterCriteria!): [Log!]!
  gasPrice: BigInt!
  maxPriorityFeePerGas: BigInt!
  syncing: SyncState
  chainID: BigInt!
}

type SyncState {
  startingBlock: Long!
  currentBlock: Long!
  highestBlock: Long!
}

type Transaction {
  hash: Hash!
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
  blobGasUsed: Long
  blobGasPrice: BigInt
  createdContract(block: Long): Account
  logs: [Log!]
  r: BigInt!
  s: BigInt!
  v: BigInt
  yParity: BigInt
  type: Long
  accessList: [AccessTuple!]
  raw: Bytes!
  rawReceipt: Bytes!
  blobVersionedHashes: [VersionedHash!]
  revertReason: Bytes
}

type Withdrawal {
  index: Long!
  validator: Long!
  address: Address!
  amount: Long!
}
`;

// ---- errors -------------------------------------------------------------------------------------

/**
 * A scalar rejected an input: `message` is the message graphql-java reports for it (a coercing
 * exception's message), used by validation ("... is not a valid 'Bytes' - <message>") and by
 * variable coercion ("Variable 'x' has an invalid value: <message>").
 */
export class ScalarInputError extends GraphQLError {}

/** A value a resolver produced that its scalar cannot serialize ("Can't serialize value ..."). */
export class ScalarOutputError extends Error {}

/** graphql-java's Node.toString() of a literal, as its validation messages quote it. */
export function javaLiteral(node: ValueNode): string {
  switch (node.kind) {
    case Kind.STRING:
      return `StringValue{value='${node.value}'}`;
    case Kind.INT:
      return `IntValue{value=${node.value}}`;
    case Kind.FLOAT:
      return `FloatValue{value=${node.value}}`;
    case Kind.BOOLEAN:
      return `BooleanValue{value=${node.value}}`;
    case Kind.NULL:
      return 'NullValue{}';
    case Kind.ENUM:
      return `EnumValue{name='${node.value}'}`;
    case Kind.VARIABLE:
      return `VariableReference{name='${node.name.value}'}`;
    case Kind.LIST:
      return `ArrayValue{values=[${node.values.map(javaLiteral).join(', ')}]}`;
    case Kind.OBJECT:
      return `ObjectValue{objectFields=[${node.fields.map((f) => `ObjectField{name='${f.name.value}', value=${javaLiteral(f.value)}}`).join(', ')}]}`;
  }
}

/** Java's toString of a decoded JSON variable value (for "Unable to parse variable value X ..."). */
function javaValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(javaValue).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k}=${javaValue(x)}`).join(', ')}}`;
  return String(v);
}

// ---- byte strings -------------------------------------------------------------------------------

const HEX_DIGITS = /^[0-9a-fA-F]*$/;

/** Tuweni Bytes.fromHexStringLenient: optional "0x", hex digits, an odd count gets a leading 0. */
function lenientHex(s: string): string | undefined {
  const digits = s.startsWith('0x') ? s.slice(2) : s;
  if (!HEX_DIGITS.test(digits)) return undefined;
  return (digits.length % 2 === 1 ? '0' + digits : digits).toLowerCase();
}

type ByteKind = 'Bytes' | 'Bytes32' | 'Hash' | 'LogTopic' | 'VersionedHash';

/** Besu's article in "Unable to parse variable value X as a(n) <Name>". */
const ARTICLE: Record<string, string> = { Bytes: 'an', Bytes32: 'an', Hash: 'a', LogTopic: 'a', VersionedHash: 'a', Address: 'an', BigInt: 'an', Long: 'an' };

/** Parses a byte-string scalar; throws the prefix error, returns undefined for other failures. */
function parseByteString(kind: ByteKind, s: string): Hex | undefined {
  if (!s.startsWith('0x')) throw new ScalarInputError(`${kind} value '${s}' is not prefixed with 0x`);
  const hex = lenientHex(s);
  if (hex === undefined) return undefined;
  if (kind === 'Bytes') return `0x${hex}` as Hex;
  if (hex.length > 64) return undefined;
  return `0x${hex.padStart(64, '0')}` as Hex;
}

function outputBytes(kind: string, v: unknown, width?: number): Hex {
  let hex: string | undefined;
  if (v instanceof Uint8Array) hex = bytesToHex(v).slice(2);
  else if (typeof v === 'string' && /^0x[0-9a-fA-F]*$/.test(v) && v.length % 2 === 0) hex = v.slice(2).toLowerCase();
  if (hex === undefined || (width !== undefined && hex.length > width * 2)) throw new ScalarOutputError(`Unable to serialize ${javaValue(v)} as ${ARTICLE[kind] ?? 'a'} ${kind}`);
  return `0x${width === undefined ? hex : hex.padStart(width * 2, '0')}` as Hex;
}

function byteScalar(kind: ByteKind, width?: number) {
  return {
    serialize: (v: unknown) => outputBytes(kind, v, width),
    parseValue: (v: unknown) => {
      const parsed = typeof v === 'string' ? parseByteString(kind, v) : undefined;
      if (parsed === undefined) throw new ScalarInputError(`Unable to parse variable value ${javaValue(v)} as ${ARTICLE[kind]} ${kind}`);
      return parsed;
    },
    parseLiteral: (ast: ValueNode) => {
      const parsed = ast.kind === Kind.STRING ? parseByteString(kind, ast.value) : undefined;
      if (parsed === undefined) throw new ScalarInputError(`Value is not any ${kind} : '${javaLiteral(ast)}'`);
      return parsed;
    },
  };
}

function parseAddress(s: string): Hex | undefined {
  const digits = s.startsWith('0x') ? s.slice(2) : s;
  return digits.length === 40 && HEX_DIGITS.test(digits) ? (`0x${digits.toLowerCase()}` as Hex) : undefined;
}

const addressScalar = {
  serialize: (v: unknown) => {
    const s = typeof v === 'string' ? v : v instanceof Uint8Array ? bytesToHex(v) : String((v as { toString(): string } | null)?.toString());
    const a = parseAddress(s);
    if (!a) throw new ScalarOutputError(`Unable to serialize ${javaValue(v)} as an Address`);
    return a;
  },
  parseValue: (v: unknown) => {
    const a = typeof v === 'string' ? parseAddress(v) : undefined;
    if (!a) throw new ScalarInputError(`Unable to parse variable value ${javaValue(v)} as an Address`);
    return a;
  },
  parseLiteral: (ast: ValueNode) => {
    const a = ast.kind === Kind.STRING ? parseAddress(ast.value) : undefined;
    if (!a) throw new ScalarInputError(`Value is not any Address : '${javaLiteral(ast)}'`);
    return a;
  },
};

// ---- numbers ------------------------------------------------------------------------------------

/** A Long from a string: "0x" hex of at most 8 bytes (unsigned into the long), or Long.parseLong. */
function parseLongString(raw: string): bigint | undefined {
  const s = raw.toLowerCase();
  if (s.startsWith('0x')) {
    const hex = lenientHex(s);
    if (hex === undefined || hex.length > 16) return undefined;
    return hex === '' ? 0n : BigInt.asIntN(64, BigInt('0x' + hex));
  }
  return parseJavaInteger(s, 64);
}

const longScalar = {
  serialize: (v: unknown) => {
    if (typeof v === 'bigint') return '0x' + BigInt.asUintN(64, v).toString(16);
    if (typeof v === 'number' && Number.isInteger(v)) return '0x' + BigInt.asUintN(64, BigInt(v)).toString(16);
    if (typeof v === 'string') return v.startsWith('0x') ? v : '0x' + v;
    throw new ScalarOutputError(`Unable to serialize ${javaValue(v)} as an Long`);
  },
  parseValue: (v: unknown) => {
    let n: bigint | undefined;
    if (typeof v === 'number' && Number.isSafeInteger(v)) n = BigInt(v);
    else if (typeof v === 'string') n = parseLongString(v);
    if (n === undefined) throw new ScalarInputError(`Unable to parse variable value ${javaValue(v)} as an Long`);
    return n;
  },
  parseLiteral: (ast: ValueNode) => {
    let n: bigint | undefined;
    if (ast.kind === Kind.INT) n = BigInt.asIntN(64, BigInt(ast.value));
    else if (ast.kind === Kind.STRING) n = parseLongString(ast.value);
    if (n === undefined) throw new ScalarInputError(`Value is not any Long : '${javaLiteral(ast)}'`);
    return n;
  },
};

const UINT256_MAX = (1n << 256n) - 1n;

function parseBigIntString(s: string): bigint | undefined {
  let n: bigint;
  if (s.startsWith('0x')) {
    const hex = lenientHex(s);
    if (hex === undefined) return undefined;
    n = hex === '' ? 0n : BigInt('0x' + hex);
  } else if (/^[0-9]+$/.test(s)) n = BigInt(s);
  else return undefined;
  return n > UINT256_MAX ? undefined : n;
}

const bigIntScalar = {
  serialize: (v: unknown) => {
    if (typeof v === 'bigint' && v >= 0n) return '0x' + v.toString(16);
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return '0x' + v.toString(16);
    throw new ScalarOutputError(`Unable to serialize ${javaValue(v)} as an BigInt`);
  },
  parseValue: (v: unknown) => {
    let n: bigint | undefined;
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) n = BigInt(v);
    else if (typeof v === 'string') n = parseBigIntString(v);
    if (n === undefined) throw new ScalarInputError(`Unable to parse variable value ${javaValue(v)} as an BigInt`);
    return n;
  },
  parseLiteral: (ast: ValueNode) => {
    let n: bigint | undefined;
    if (ast.kind === Kind.INT) {
      const i = BigInt(ast.value);
      n = i < 0n || i > UINT256_MAX ? undefined : i;
    } else if (ast.kind === Kind.STRING) n = parseBigIntString(ast.value);
    if (n === undefined) throw new ScalarInputError(`Value is not any BigInt : '${javaLiteral(ast)}'`);
    return n;
  },
};

/** The schema with its scalars wired (resolvers are applied by the handler's field resolver). */
export function buildEthSchema(): GraphQLSchema {
  const schema = buildSchema(SCHEMA_SDL);
  const scalars: Record<string, object> = {
    Address: addressScalar,
    BigInt: bigIntScalar,
    Bytes: byteScalar('Bytes'),
    Bytes32: byteScalar('Bytes32', 32),
    Hash: byteScalar('Hash', 32),
    LogTopic: byteScalar('LogTopic', 32),
    VersionedHash: byteScalar('VersionedHash', 32),
    Long: longScalar,
  };
  for (const [name, impl] of Object.entries(scalars)) Object.assign(schema.getType(name) as GraphQLScalarType, impl);
  return schema;
}
