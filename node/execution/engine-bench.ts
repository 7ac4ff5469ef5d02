/**
 * BENCHMARK ONLY: measures block building and block import throughput with real wall-clock time
 * (`performance.now`). Nothing in the node or the simulation imports this file; the bench
 * script calls it.
 *
 * Workload: `n` EIP-1559 value transfers from up to 64 funded senders (nonce chains interleaved)
 * to distinct recipients, signed before timing. Build = one `buildBlock` on the genesis state.
 * Import = a second engine gets the block decoded from its RLP (fresh transaction objects, as a
 * peer receives them; decoding is timed apart) and runs `executeBlock`; measured cold (signature-recovery memo emptied: the
 * cost on a lone node) and warm (memo kept: what a simulated world pays after its first node).
 */
import { createBlockFromRLP } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { cryptoPluginBackend, clearRecoveryMemo, useCryptoPluginBackend } from '../crypto/ethereumjs-crypto.ts';
import { QBFT_MIX_HASH, makeChain, recipient, testKey, transfer } from './test-fixtures.ts';

export interface EngineBenchResult {
  transactions: number;
  backend: 'native' | 'noble';
  buildTxPerSec: number;
  executeTxPerSec: number;
  executeWarmTxPerSec: number;
  buildMs: number;
  executeMs: number;
  executeWarmMs: number;
  /** createBlockFromRLP of the block (the p2p layer's cost, not included above) */
  decodeMs: number;
  gasUsed: bigint;
}

export async function benchBuild(n: number, opts: { backend?: 'native' | 'noble' } = {}): Promise<EngineBenchResult> {
  const previous = cryptoPluginBackend();
  if (opts.backend) useCryptoPluginBackend(opts.backend);
  try {
    const senders = Math.max(1, Math.min(64, n));
    const gasLimit = BigInt(n) * 21_000n + 1_000_000n;
    const chainOpts = { fundedCount: senders, gasLimit: gasLimit > 30_000_000n ? gasLimit : 30_000_000n };
    const a = await makeChain(chainOpts);
    const keys = Array.from({ length: senders }, (_, i) => testKey(i));
    const txs: TypedTransaction[] = [];
    for (let i = 0; i < n; i++) txs.push(transfer(a.common, keys[i % senders], BigInt(Math.floor(i / senders)), recipient(i), 1n));

    clearRecoveryMemo();
    let t0 = performance.now();
    const built = await a.engine.buildBlock({
      parent: a.genesisBlock,
      parentHash: new Uint8Array(32),
      number: 1n,
      timestamp: 1,
      coinbase: '0x00000000000000000000000000000000000000cb',
      extraData: new Uint8Array(0),
      mixHash: QBFT_MIX_HASH,
      transactions: txs,
    });
    const buildMs = performance.now() - t0;
    if (built.skipped.length > 0) throw new Error(`bench: ${built.skipped.length} skipped: ${built.skipped[0].message}`);
    const rlp = built.block.serialize();

    let decodeMs = 0;
    const run = async (warm: boolean) => {
      const b = await makeChain(chainOpts);
      if (!warm) clearRecoveryMemo();
      const d0 = performance.now();
      const block = createBlockFromRLP(rlp, { common: b.common, setHardfork: true, skipConsensusFormatValidation: true });
      const start = performance.now();
      decodeMs = start - d0;
      await b.engine.executeBlock(block, b.engine.genesisStateRoot);
      return performance.now() - start;
    };
    const executeMs = await run(false);
    const executeWarmMs = await run(true);
    const rate = (ms: number) => Math.round((n * 1000) / ms);
    return {
      transactions: n,
      backend: cryptoPluginBackend(),
      buildTxPerSec: rate(buildMs),
      executeTxPerSec: rate(executeMs),
      executeWarmTxPerSec: rate(executeWarmMs),
      buildMs: Math.round(buildMs),
      executeMs: Math.round(executeMs),
      executeWarmMs: Math.round(executeWarmMs),
      decodeMs: Math.round(decodeMs),
      gasUsed: built.block.header.gasUsed,
    };
  } finally {
    useCryptoPluginBackend(previous);
  }
}
