/**
 * Besu's privacy errors (RpcErrorType at tag 25.4.0, before Besu removed privacy in 25.6):
 * -50100 for what the privacy layer refuses. The manager's own refusals answer -50200 with the
 * enclave error's name (Besu's JsonRpcEnclaveErrorConverter), e.g. "CreatePrivacyGroupShouldIncludeSelf".
 */
import { RpcError } from '../../errors.ts';

export const PRIVACY_ERRORS = {
  PRIVACY_NOT_ENABLED: 'Privacy is not enabled',
  DECODE_ERROR: 'Unable to decode the private signed raw transaction',
  UNSUPPORTED_PRIVATE_TRANSACTION_TYPE: 'Unsupported private transaction type',
  PRIVATE_FROM_DOES_NOT_MATCH_ENCLAVE_PUBLIC_KEY: 'Private from does not match enclave public key',
  VALUE_NOT_ZERO: 'We cannot transfer ether in a private transaction yet.',
  CREATE_PRIVACY_GROUP_ERROR: 'Error creating privacy group',
  DELETE_PRIVACY_GROUP_ERROR: 'Error deleting privacy group',
  FIND_PRIVACY_GROUP_ERROR: 'Error finding privacy group',
  GET_PRIVATE_TRANSACTION_NONCE_ERROR: 'Unable to determine nonce for account in group.',
  OFFCHAIN_PRIVACY_GROUP_DOES_NOT_EXIST: 'Offchain Privacy group does not exist.',
} as const;

export type PrivacyErrorName = keyof typeof PRIVACY_ERRORS;

export function privacyError(name: PrivacyErrorName): RpcError {
  return new RpcError(-50100, PRIVACY_ERRORS[name]);
}
