import test from 'ava';
import {
  RpcError,
  RpcErrorType,
  decodeRevertReason,
  invalidParams,
  revertError,
  rpcError,
  rpcErrorWithReason,
  transactionInvalidError,
} from './errors.ts';

test('the §8 error types have Besu codes and messages', (t) => {
  const expect: Record<string, [number, string]> = {
    PARSE_ERROR: [-32700, 'Parse error'],
    INVALID_REQUEST: [-32600, 'Invalid Request'],
    METHOD_NOT_FOUND: [-32601, 'Method not found'],
    INVALID_PARAMS: [-32602, 'Invalid params'],
    INTERNAL_ERROR: [-32603, 'Internal error'],
    TIMEOUT_ERROR: [-32603, 'Timeout expired'],
    METHOD_NOT_ENABLED: [-32604, 'Method not enabled'],
    UNAUTHORIZED: [-40100, 'Unauthorized'],
    SUBSCRIPTION_NOT_FOUND: [-32000, 'Subscription not found'],
    EXCEEDS_RPC_MAX_BATCH_SIZE: [-32005, 'Number of requests exceeds max batch size'],
    EXCEEDS_MAX_BATCH_SIZE: [-32005, 'Number of requests exceeds max batch size'],
    INVALID_ADDRESS_PARAMS: [-32602, 'Invalid address params'],
    INVALID_BLOCK_PARAMS: [-32602, 'Invalid block param (block not found)'],
    INVALID_BLOCK_HASH_PARAMS: [-32602, 'Invalid block hash params'],
    INVALID_BLOCK_NUMBER_PARAMS: [-32602, 'Invalid block number params'],
    INVALID_VOTE_TYPE_PARAMS: [-32602, 'Invalid vote type params'],
    NONCE_TOO_LOW: [-32001, 'Nonce too low'],
    GAS_PRICE_TOO_LOW: [-32009, 'Gas price below configured minimum gas price'],
    REPLACEMENT_UNDERPRICED: [-32000, 'Replacement transaction underpriced'],
    TX_FEECAP_EXCEEDED: [-32000, 'Transaction fee cap exceeded'],
    INTRINSIC_GAS_EXCEEDS_LIMIT: [-32003, 'Intrinsic gas exceeds gas limit'],
    EXCEEDS_BLOCK_GAS_LIMIT: [-32005, 'Transaction gas limit exceeds block gas limit'],
    WRONG_CHAIN_ID: [-32000, 'Wrong chainId'],
    INVALID_TRANSACTION_TYPE: [-32602, 'Invalid transaction type'],
    NONCE_TOO_HIGH: [-32006, 'Nonce too high'],
    TX_NONCE_TOO_FAR: [-32000, 'Transaction nonce is too distant from current sender nonce'],
    REVERT_ERROR: [3, 'Execution reverted'],
    BLOCK_NOT_FOUND: [-32000, 'Block not found'],
    UNKNOWN_BLOCK: [-39001, 'Unknown block'],
    ETH_SEND_TX_ALREADY_KNOWN: [-32000, 'Known transaction'],
  };
  for (const [name, want] of Object.entries(expect)) {
    t.deepEqual([...RpcErrorType[name as keyof typeof RpcErrorType]], want, name);
  }
});

test('rpcError, invalidParams, rpcErrorWithReason', (t) => {
  const e = rpcError('METHOD_NOT_ENABLED');
  t.true(e instanceof RpcError);
  t.true(e instanceof Error);
  t.is(e.code, -32604);
  t.is(e.message, 'Method not enabled');
  t.is(e.data, undefined);
  t.deepEqual(e.toJSON(), { code: -32604, message: 'Method not enabled' });
  t.deepEqual(rpcError('INTERNAL_ERROR', 'x', 'd').toJSON(), { code: -32603, message: 'x', data: 'd' });
  t.deepEqual(invalidParams().toJSON(), { code: -32602, message: 'Invalid params' });
  t.deepEqual(invalidParams('Invalid address params').toJSON(), { code: -32602, message: 'Invalid address params' });
  t.is(rpcErrorWithReason('NONCE_TOO_LOW', 'transaction nonce 1 below sender account nonce 5').message, 'Nonce too low (transaction nonce 1 below sender account nonce 5)');
  t.is(rpcErrorWithReason('NONCE_TOO_LOW', undefined).message, 'Nonce too low');
});

test('transactionInvalidError follows JsonRpcErrorConverter', (t) => {
  const e = transactionInvalidError('TRANSACTION_REPLACEMENT_UNDERPRICED', 'r');
  t.is(e.code, -32000);
  t.is(e.message, 'Replacement transaction underpriced (r)');
  t.is(transactionInvalidError('INVALID_SIGNATURE').message, 'Invalid signature');
  t.is(transactionInvalidError('INVALID_TRANSACTION_FORMAT').code, -32602);
  t.is(transactionInvalidError('SOMETHING_ELSE').message, 'Internal error');
  t.is(transactionInvalidError('toString').message, 'Internal error');
});

test('revertError decodes Error(string) like Besu', (t) => {
  // Error("Not enough Ether provided.")
  const data =
    '0x08c379a0' +
    '0000000000000000000000000000000000000000000000000000000000000020' +
    '000000000000000000000000000000000000000000000000000000000000001a' +
    '4e6f7420656e6f7567682045746865722070726f76696465642e000000000000';
  const e = revertError(data);
  t.is(e.code, 3);
  t.is(e.message, 'Execution reverted (Not enough Ether provided.)');
  t.is(e.data, data);
  t.deepEqual(revertError('0x').toJSON(), { code: 3, message: 'Execution reverted', data: '0x' });
  t.is(revertError('0x12345678').message, 'Execution reverted');
  t.is(decodeRevertReason('0x08c379a0'), undefined);
  t.is(decodeRevertReason('0x08c379a000'), 'ABI decode error');
  t.is(revertError('0x08C379A0' + 'ff'.repeat(10)).data, '0x08c379a0' + 'ff'.repeat(10));
});
