/** Block rewards as the chain rules compute them (proof-of-work import) and the engine credits them (node/execution/engine.ts). */
import type { Hex } from '../crypto/bytes.ts';

/** A block reward credited after the transactions (QBFT's, or proof of work's block and ommer rewards); amount 0 = none. */
export interface Reward {
  to: Hex;
  amountWei: bigint;
}

/** One reward, several (a proof-of-work block and its ommers), or none. */
export type Rewards = Reward | readonly Reward[] | undefined;
