import test from 'ava';
import type { InterpreterStep } from '@ethereumjs/evm';
import { createAddressFromString } from '@ethereumjs/util';
import { StructLogger, TraceTooLargeError } from './struct-logger.ts';

const ADDRESS = createAddressFromString('0x00000000000000000000000000000000000000aa');

function step(pc: number, name: string, stack: bigint[], memory = new Uint8Array(0), depth = 0, gasLeft = 1000n, fee = 3n): InterpreterStep {
  return { pc, opcode: { name, fee: 3, dynamicFee: fee, isAsync: false, code: 0 }, gasLeft, stack, memory, depth, address: ADDRESS } as unknown as InterpreterStep;
}

test('memory after the step, storage written so far, revert data as reason, compact stack words', (t) => {
  const logger = new StructLogger({ stack: true, memory: true, storage: true });
  logger.step(step(0, 'PUSH1', []));
  logger.step(step(2, 'SSTORE', [5n, 1n], new Uint8Array(0), 0, 997n, 20_000n));
  const mem = new Uint8Array(32);
  mem[31] = 0x2a;
  logger.step(step(3, 'MSTORE', [0x2an, 0n], new Uint8Array(0), 0, 0n));
  logger.step(step(4, 'REVERT', [32n, 0n], mem));
  const r = logger.result(21_000n, true, new Uint8Array([0xab]));
  t.deepEqual(r.structLogs[0]!.stack, []);
  t.deepEqual(r.structLogs[1]!.stack, ['0x5', '0x1']);
  t.deepEqual(r.structLogs[1]!.storage, { [`0x${'0'.repeat(63)}1`]: `0x${'0'.repeat(63)}5` }, 'key = top of the stack, value below it');
  t.is(r.structLogs[1]!.gasCost, 20_000);
  t.deepEqual(r.structLogs[2]!.memory, ['0x2a'], 'what MSTORE left, read at the next step');
  t.is(r.structLogs[3]!.reason, `0x${'00'.repeat(31)}2a`);
  t.deepEqual([r.gas, r.failed, r.returnValue], [21_000, true, 'ab']);
});

test('past the cell bound recording stops and the result is refused', (t) => {
  const logger = new StructLogger({ stack: true, memory: false, storage: false }, 10);
  for (let i = 0; i < 20; i++) logger.step(step(i, 'PUSH1', [1n, 2n, 3n]));
  t.throws(() => logger.result(1n, false, new Uint8Array(0)), { instanceOf: TraceTooLargeError });
});

test('a frame that halts marks its last step with Besu\'s halt reason; a revert does not', (t) => {
  const logger = new StructLogger({ stack: false, memory: false, storage: false });
  logger.enter();
  logger.step(step(0, 'PUSH1', []));
  logger.enter();
  logger.step(step(0, 'INVALID', [], new Uint8Array(0), 1));
  logger.exit('INVALID_OPERATION');
  logger.step(step(2, 'REVERT', [0n, 0n]));
  logger.exit(undefined);
  const logs = logger.result(100n, true, new Uint8Array(0)).structLogs;
  t.deepEqual(logs.map((l) => l.error), [undefined, 'INVALID_OPERATION', undefined]);
});
