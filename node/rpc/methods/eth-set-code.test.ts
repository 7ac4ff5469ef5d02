/**
 * EIP-7702 in simulated calls checked against the chain itself: eth_createAccessList's gasUsed
 * (the simulator) must equal the receipt of the same type-4 transaction once mined (the engine,
 * @ethereumjs runTx). Two cases the rules make delicate: an authority that is not the callee (it
 * must be warm), and a self-sponsored authorization (it carries the sender's nonce + 1).
 */
import test from 'ava';
import { createEOACode7702Tx, type TypedTransaction } from '@ethereumjs/tx';
import { RLP } from '@ethereumjs/rlp';
import { bytesToHex, hexToBytes, intToBytes, type Hex } from '../../crypto/bytes.ts';
import { keccak256 } from '../../crypto/keccak.ts';
import { sign } from '../../crypto/secp256k1.ts';
import { LOGGER_CONTRACT } from '../../../sim/genesis-builder.ts';
import { BESU_TEST_ACCOUNTS } from '../../../sim/keys.ts';
import { call, ok, sign1559, startCluster, GWEI, type Cluster } from './test-kit.ts';

function authorize(c: Cluster, account: number, delegate: Hex, nonce: bigint) {
  const chainId = c.node.config.genesis.chainId;
  const sig = sign(keccak256(Uint8Array.from([0x05, ...RLP.encode([intToBytes(chainId), hexToBytes(delegate), intToBytes(nonce)])])), BESU_TEST_ACCOUNTS[account]!.privateKey);
  return {
    rpc: { chainId: `0x${chainId.toString(16)}`, address: delegate, nonce: `0x${nonce.toString(16)}`, yParity: `0x${sig[64]!.toString(16)}`, r: bytesToHex(sig.subarray(0, 32)), s: bytesToHex(sig.subarray(32, 64)) },
    tuple: [intToBytes(chainId), hexToBytes(delegate), intToBytes(nonce), intToBytes(sig[64]!), sig.subarray(0, 32), sig.subarray(32, 64)],
  };
}

function setCodeTx(c: Cluster, from: number, nonce: bigint, to: Hex, ...auths: Array<ReturnType<typeof authorize>>): TypedTransaction {
  return createEOACode7702Tx(
    { chainId: c.node.config.genesis.chainId, nonce, to, value: 0n, gasLimit: 200_000n, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 2n, authorizationList: auths.map((a) => a.tuple as never) },
    { common: c.node.common },
  ).sign(BESU_TEST_ACCOUNTS[from]!.privateKey);
}

async function mine(c: Cluster, tx: TypedTransaction) {
  const r = await c.node.submitTransaction(tx.serialize());
  if (!r.ok) throw new Error(r.error);
  for (let i = 0; i < 10; i++) {
    await c.world.advanceBy(1_000);
    const receipt = await c.api.receiptByTxHash(r.hash);
    if (receipt) return receipt;
  }
  throw new Error(`not mined: ${r.hash} (pool: ${JSON.stringify(await ok(c.api, 'txpool_besuStatistics', []))})`);
}

const nonceOf = async (c: Cluster, account: number) => BigInt((await ok(c.api, 'eth_getTransactionCount', [BESU_TEST_ACCOUNTS[account]!.address, 'latest'])) as string);

test.serial('simulated gas of a type-4 call equals the mined receipt: an authority other than the callee is warm', async (t) => {
  const c = await startCluster({ fork: 'prague' });
  {
    const authority = BESU_TEST_ACCOUNTS[2]!.address;
    // A contract that reads the authority's balance: PUSH20 authority BALANCE POP STOP
    const runtime = Uint8Array.from([0x73, ...hexToBytes(authority), 0x31, 0x50, 0x00]);
    const init = Uint8Array.from([0x60, runtime.length, 0x60, 12, 0x60, 0, 0x39, 0x60, runtime.length, 0x60, 0, 0xf3, ...runtime]);
    const deployer = 1;
    const deployed = await mine(c, sign1559(c.node, deployer, { nonce: await nonceOf(c, deployer), data: init, gasLimit: 200_000n }));
    const reader = deployed!.contractAddress as Hex;
    const auth = authorize(c, 2, LOGGER_CONTRACT, await nonceOf(c, 2));
    const from = BESU_TEST_ACCOUNTS[0]!.address;
    const simulated = (await ok(c.api, 'eth_createAccessList', [{ from, to: reader, authorizationList: [auth.rpc], gas: '0x30d40' }, 'latest'])) as { gasUsed: string };
    const receipt = await mine(c, setCodeTx(c, 0, await nonceOf(c, 0), reader, auth));
    t.is(receipt?.status, 1);
    t.is(BigInt(simulated.gasUsed), receipt!.gasUsed);
    t.is(await ok(c.api, 'eth_getCode', [authority, 'latest']), `0xef0100${LOGGER_CONTRACT.slice(2)}`);
  }
});

test.serial('a self-sponsored authorization carries the sender nonce + 1 in simulation as on chain', async (t) => {
  const c = await startCluster({ fork: 'prague' });
  {
    const account = 2;
    const address = BESU_TEST_ACCOUNTS[account]!.address;
    const n = await nonceOf(c, account);
    // Two tuples: the first carries nonce + 1 (after the transaction's own increment), the second
    // nonce + 2 (after the first's). Both apply, and both refund.
    const auth = authorize(c, account, LOGGER_CONTRACT, n + 1n);
    const again = authorize(c, account, LOGGER_CONTRACT, n + 2n);
    const simulated = (await ok(c.api, 'eth_createAccessList', [{ from: address, to: address, authorizationList: [auth.rpc, again.rpc], gas: '0x30d40' }, 'latest'])) as { gasUsed: string };
    // A tuple with the sender's own nonce (not + 1) does not apply: no code runs and nothing is
    // refunded, so the call costs exactly 21000 + 25000 for the tuple.
    const stale = authorize(c, account, LOGGER_CONTRACT, n);
    const plain = (await ok(c.api, 'eth_createAccessList', [{ from: address, to: address, authorizationList: [stale.rpc], gas: '0x30d40' }, 'latest'])) as { gasUsed: string };
    t.is(BigInt(plain.gasUsed), 46_000n);
    const receipt = await mine(c, setCodeTx(c, account, n, address, auth, again));
    t.is(receipt?.status, 1);
    // The delegated logger ran (one log) on chain, and the simulation charged what the chain did.
    t.is(receipt!.logs.length, 1);
    t.is(BigInt(simulated.gasUsed), receipt!.gasUsed);
    t.is(await nonceOf(c, account), n + 3n);
  }
});

test.serial('authorizationList before Prague, without a callee or empty is an invalid transaction', async (t) => {
  const c = await startCluster();
  const auth = authorize(c, 2, LOGGER_CONTRACT, 0n);
  const from = BESU_TEST_ACCOUNTS[0]!.address;
  const before = (await call(c.api, 'eth_estimateGas', [{ from, to: from, authorizationList: [auth.rpc] }])) as { error?: { message: string } };
  t.regex(before.error?.message ?? '', /DELEGATE_CODE is invalid before Prague/);
  const p = await startCluster({ fork: 'prague' });
  const noTo = (await call(p.api, 'eth_estimateGas', [{ from, authorizationList: [auth.rpc] }])) as { error?: { message: string } };
  t.regex(noTo.error?.message ?? '', /must have a to address/);
  const empty = (await call(p.api, 'eth_estimateGas', [{ from, to: from, authorizationList: [] }])) as { error?: { message: string } };
  t.regex(empty.error?.message ?? '', /non-empty code delegation list/);
});

test.serial('Osaka caps a call without a gas limit at 2^24 (EIP-7825); Prague gives it the block gas limit', async (t) => {
  // Code that returns the gas left: GAS PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
  const probe = '0x00000000000000000000000000000000000000ee';
  const gasLeft = async (c: Cluster) =>
    BigInt((await ok(c.api, 'eth_call', [{ to: probe }, 'latest', { [probe]: { code: '0x5a60005260206000f3' } }])) as string);
  const osaka = await gasLeft(await startCluster({ fork: 'osaka' }));
  const prague = await gasLeft(await startCluster({ fork: 'prague' }));
  t.true(osaka < 16_777_216n && osaka > 16_700_000n, String(osaka));
  t.true(prague > 29_000_000n, String(prague));
});
