/**
 * Frozen copies of a Common, one per hardfork, to construct blocks and transactions with.
 *
 * ethereumjs copies the Common and re-merges its parameter tables for every header and transaction
 * it constructs, which dominated block decoding and transaction pool admission. A frozen copy's
 * copy() returns itself and its updateParams() skips parameter tables it has already merged. Each
 * copy is set to its hardfork once, when made, and never again (nothing constructed with it calls
 * setHardfork), so sharing it is safe.
 */
import type { Common } from '@ethereumjs/common';

const decodeCommons = new WeakMap<Common, Map<string, Common>>();

function frozenCopy(common: Common, hardfork: string): Common {
  const copy = common.copy();
  copy.setHardfork(hardfork);
  const merged = new Set<unknown>();
  const updateParams = copy.updateParams.bind(copy);
  copy.updateParams = (params) => {
    if (merged.has(params)) return;
    merged.add(params);
    updateParams(params);
  };
  copy.copy = () => copy;
  return copy;
}

/**
 * The shared, frozen copy of `common` to construct blocks and transactions with (constructing
 * against the node's Common itself copies it and re-merges its parameters every time): at the
 * fork of the given block, but never below the fork the Common is set to (the genesis fork for
 * the node's Common; tests hand in a Common set to one fork for blocks of any number).
 */
export function decodingCommon(common: Common, at?: { blockNumber: bigint; timestamp: bigint }): Common {
  let hardfork = common.hardfork();
  if (at) {
    try {
      const own = common.getHardforkBy(at);
      if (common.hardforkGteHardfork(own, hardfork)) hardfork = own;
    } catch {
      // number and timestamp disagree about the fork (a block-numbered fork after a timed one):
      // decode under the Common's fork and let validation judge the block.
    }
  }
  let byFork = decodeCommons.get(common);
  if (!byFork) decodeCommons.set(common, (byFork = new Map()));
  let frozen = byFork.get(hardfork);
  if (!frozen) byFork.set(hardfork, (frozen = frozenCopy(common, hardfork)));
  return frozen;
}

