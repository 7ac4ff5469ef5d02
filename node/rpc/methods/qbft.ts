/**
 * The 7 qbft_ methods (group QBFT), exactly as qbft-notes §4.2 and Besu
 * (besu: consensus/qbft/.../jsonrpc/QbftJsonRpcMethods.java and methods/Qbft*.java,
 * consensus/common/.../jsonrpc/AbstractVoteProposerMethod.java, AbstractGetSignerMetricsMethod.java,
 * ethereum/api/.../results/SignerMetricResult.java; snapshot 3fd224e2).
 *
 * - Vote methods answer -32604 "Method not enabled" when there is no vote provider at the head:
 *   the fork ruling at the head's number is in contract mode (ForkingValidatorProvider).
 * - qbft_getValidatorsByBlockNumber: `pending` -> validators after the head; otherwise the
 *   validators *for* that block (ValidatorSets.ofBlock); null for a block that does not exist.
 * - qbft_getSignerMetrics: from (default max(0, head - 100)) inclusive to (default/clamped head)
 *   exclusive; each proposer's count and last block, then every validator after block to-1 with
 *   zero counts; -32602 "Invalid block number params" when from >= to.
 */
import type { Hex } from '../../crypto/bytes.ts';
import { rpcError } from '../errors.ts';
import { qty } from '../formatters/hex.ts';
import type { NodeApi } from '../node-api.ts';
import { optional, parseAddress, parseBlockParam, parseBoolean, parseHash32, type BlockParam } from '../params.ts';
import type { RpcMethodSpec } from '../registry.ts';

const DEFAULT_RANGE_BLOCK = 100;

export function qbftMethods(api: NodeApi): RpcMethodSpec[] {
  const node = api.node;
  /** ValidatorProvider.getVoteProviderAtHead(): present unless the head's fork is in contract mode. */
  const voteProvider = () => {
    if (node.isContractModeAt(api.headNumber())) throw rpcError('METHOD_NOT_ENABLED');
  };

  /** AbstractGetSignerMetricsMethod.resolveBlockNumber (finalized/safe: the head, as on QBFT). */
  const resolve = (p: BlockParam): bigint => api.numberOf(p);

  return [
    {
      name: 'qbft_proposeValidatorVote',
      group: 'QBFT',
      handler: (params) => {
        voteProvider();
        const address = parseAddress(params[0], 'INVALID_ADDRESS_PARAMS');
        const add = parseBoolean(params[1], 'INVALID_VOTE_TYPE_PARAMS');
        node.proposeVote(address, add);
        return true;
      },
    },
    {
      name: 'qbft_discardValidatorVote',
      group: 'QBFT',
      handler: (params) => {
        voteProvider();
        node.discardVote(parseAddress(params[0], 'INVALID_ADDRESS_PARAMS'));
        return true;
      },
    },
    {
      name: 'qbft_getPendingVotes',
      group: 'QBFT',
      handler: () => {
        voteProvider();
        const out: Record<string, boolean> = {};
        for (const [address, add] of node.pendingVotes()) out[address.toLowerCase()] = add;
        return out;
      },
    },
    {
      name: 'qbft_getValidatorsByBlockNumber',
      group: 'QBFT',
      handler: async (params) => {
        const block = parseBlockParam(params[0], 'INVALID_BLOCK_PARAMS');
        if (block.kind === 'tag' && block.tag === 'pending') return lower(await node.validatorsAfter(api.head()));
        const entry = api.entryOf(block);
        return entry ? lower(await node.validatorsOf(entry)) : null;
      },
    },
    {
      name: 'qbft_getValidatorsByBlockHash',
      group: 'QBFT',
      handler: async (params) => {
        const hash = parseHash32(params[0], 'INVALID_BLOCK_HASH_PARAMS');
        const entry = api.byHash(hash);
        return entry ? lower(await node.validatorsOf(entry)) : null;
      },
    },
    {
      name: 'qbft_getSignerMetrics',
      group: 'QBFT',
      handler: async (params) => {
        const start = optional(params[0], (v) => parseBlockParam(v, 'INVALID_BLOCK_NUMBER_PARAMS'));
        const end = optional(params[1], (v) => parseBlockParam(v, 'INVALID_BLOCK_NUMBER_PARAMS'));
        const head = BigInt(api.headNumber());
        const from = start ? resolve(start) : BigInt(Math.max(0, api.headNumber() - DEFAULT_RANGE_BLOCK));
        let to = head;
        if (end) {
          const n = resolve(end);
          if (n <= head) to = n;
        }
        if (!(from < to)) throw rpcError('INVALID_BLOCK_NUMBER_PARAMS');
        const metrics = new Map<Hex, { count: number; last: bigint }>();
        for (let n = from; n < to; n++) {
          const entry = api.byNumber(n);
          if (!entry) continue;
          const m = metrics.get(entry.coinbase) ?? { count: 0, last: 0n };
          m.count++;
          m.last = n;
          metrics.set(entry.coinbase, m);
          if (n === to - 1n) for (const v of await node.validatorsAfter(entry)) if (!metrics.has(v)) metrics.set(v, { count: 0, last: 0n });
        }
        return [...metrics].map(([address, m]) => ({
          address,
          proposedBlockCount: qty(m.count),
          lastProposedBlockNumber: qty(m.last),
        }));
      },
    },
    {
      name: 'qbft_getRequestTimeoutSeconds',
      group: 'QBFT',
      handler: () => node.config.genesis.qbft.requestTimeoutSeconds,
    },
  ];
}

function lower(list: readonly Hex[]): string[] {
  return list.map((a) => a.toLowerCase());
}
