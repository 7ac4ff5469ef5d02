/** Small helpers on @ethereumjs transactions shared by the engine and the pool. */
import { TransactionType, type TypedTransaction } from '@ethereumjs/tx';
import { customCrypto } from '../crypto/ethereumjs-crypto.ts';

/**
 * Gives a transaction's own Common copy our crypto when it lacks it (sender recovery is the hot
 * path of block import). Only that transaction's Common object is touched.
 */
export function useFastCrypto(tx: TypedTransaction): void {
  const c = tx.common as unknown as { customCrypto: typeof customCrypto };
  if (c.customCrypto.ecrecover !== customCrypto.ecrecover) c.customCrypto = { ...c.customCrypto, ...customCrypto };
}

/** EIP-155 / typed chain id of a signed transaction, undefined for pre-EIP-155 legacy ones. */
export function txChainId(tx: TypedTransaction): bigint | undefined {
  if (tx.type !== TransactionType.Legacy) return (tx as unknown as { chainId: bigint }).chainId;
  const v = tx.v;
  if (v === undefined || v === 27n || v === 28n) return undefined;
  return (v - 35n) / 2n;
}
