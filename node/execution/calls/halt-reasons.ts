/**
 * Besu's ExceptionalHaltReason for an ethereumjs EVM error: its description (call results, call
 * traces) and its name (struct logs' `error`), and the opcode a frame halted on.
 */
import type { EVMResult } from '@ethereumjs/evm';

/** ethereumjs EVM error -> Besu ExceptionalHaltReason description. */
export function haltDescription(error: string, opcode?: number): string {
  switch (error) {
    case 'out of gas':
    case 'code store out of gas':
      return 'Out of gas';
    case 'stack underflow':
      return 'Stack underflow';
    case 'stack overflow':
      return 'Out of stack';
    case 'invalid JUMP':
      return 'Bad jump destination';
    case 'invalid opcode':
      return opcode === undefined ? 'Bad instruction' : `Invalid opcode: 0x${opcode.toString(16).padStart(2, '0')}`;
    case 'static state change':
      return 'Illegal state change';
    case 'code size to deposit exceeds maximum code size':
      return 'Code is too large';
    case 'invalid bytecode deployed':
    case 'invalid EOF format':
      return 'Code is invalid';
    case 'value out of range':
      return 'Out of bounds';
    case 'create collision':
      return 'Illegal state change';
    default:
      return error.charAt(0).toUpperCase() + error.slice(1);
  }
}


/** Besu's ExceptionalHaltReason name of an EVM error (struct logs' `error`); revert is none. */
export function haltReasonName(error: string): string | undefined {
  switch (error) {
    case 'revert':
      return undefined;
    case 'out of gas':
    case 'code store out of gas':
      return 'INSUFFICIENT_GAS';
    case 'stack underflow':
      return 'INSUFFICIENT_STACK_ITEMS';
    case 'stack overflow':
      return 'TOO_MANY_STACK_ITEMS';
    case 'invalid JUMP':
      return 'INVALID_JUMP_DESTINATION';
    case 'invalid opcode':
      return 'INVALID_OPERATION';
    case 'static state change':
    case 'create collision':
      return 'ILLEGAL_STATE_CHANGE';
    case 'code size to deposit exceeds maximum code size':
      return 'CODE_TOO_LARGE';
    case 'invalid bytecode deployed':
    case 'invalid EOF format':
      return 'INVALID_CODE';
    case 'value out of range':
    case 'return data out of bounds':
      return 'OUT_OF_BOUNDS';
    default:
      return error.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
  }
}

export function haltingOpcode(ex: EVMResult['execResult']): number | undefined {
  const rs = ex.runState as unknown as { code?: Uint8Array; programCounter?: number } | undefined;
  if (!rs?.code || rs.programCounter === undefined) return undefined;
  // an invalid opcode is rejected before the program counter advances
  return rs.code[rs.programCounter];
}
