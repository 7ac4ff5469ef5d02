export type ExecutionErrorReason =
  | 'UNKNOWN_PARENT_STATE'
  | 'UNSUPPORTED_FORK'
  | 'INVALID_REQUESTS_HASH'
  | 'INVALID_SYSTEM_CALL'
  | 'INVALID_DEPOSIT_LOG'
  | 'INVALID_TRANSACTION'
  | 'INVALID_TRANSACTIONS_ROOT'
  | 'INVALID_WITHDRAWALS'
  | 'INVALID_BLOB_GAS'
  | 'GAS_LIMIT_EXCEEDED'
  | 'INVALID_GAS_USED'
  | 'INVALID_RECEIPTS_ROOT'
  | 'INVALID_LOGS_BLOOM'
  | 'INVALID_STATE_ROOT';

/** Why a block cannot be built on or imported: a Besu-like reason code and a message. */
export class ExecutionError extends Error {
  constructor(
    readonly reason: ExecutionErrorReason,
    message: string,
  ) {
    super(`${reason}: ${message}`);
    this.name = 'ExecutionError';
  }
}
