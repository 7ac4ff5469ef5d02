/**
 * Interop with an independent devp2p implementation, @ethereumjs/devp2p 10.0.0, against a real live
 * qbft-lab node (one QBFT validator producing a block a second, RLPx on 127.0.0.1, JSON-RPC over
 * HTTP). devp2p dials the node's enode and must see eth/68 and istanbul/100 in the node's Hello,
 * get through the eth Status exchange with its own checks (network id, genesis hash, EIP-2124
 * fork id from a Common built from the same genesis JSON), and fetch headers whose fields and
 * QBFT block hashes match what JSON-RPC says. The planted negative sends a Status with a wrong
 * genesis hash and pins down what the node does with such a peer.
 */
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { parseGenesis } from '../node/chain/genesis.ts';
import { parseNodeOptions } from '../node/cli/node-options.ts';
import { startLiveNode, type LiveNode } from '../node/cli/live-node.ts';
import { LiveLog } from '../node/runtime/live-log.ts';
import { buildSimGenesis } from '../sim/genesis-builder.ts';
import { validatorKeys } from '../sim/keys.ts';
import {
  DISCONNECT_REASON,
  Devp2pPeer,
  Eth,
  HeaderField,
  hex,
  keccak,
  qbftOnchainHash,
  qbftSeals,
  response,
  rpc,
  scalar,
  unhex,
  waitFor,
  within,
  type DialedNode,
} from './devp2p-peer-kit.ts';

const CHAIN_ID = 1337;
/** Headers 1..3 are fetched, so the node must have made at least that many blocks. */
const MIN_HEAD = 3;
const REPLY_MS = 3000;
const QUANTITY_FIELDS = ['number', 'difficulty', 'gasLimit', 'gasUsed', 'timestamp', 'baseFeePerGas'] as const;
const DATA_FIELDS = ['parentHash', 'sha3Uncles', 'miner', 'stateRoot', 'transactionsRoot', 'receiptsRoot', 'logsBloom', 'extraData', 'mixHash', 'nonce'] as const;
const quantity = (b: Uint8Array): string => `0x${scalar(b).toString(16)}`;

interface Running {
  live: LiveNode;
  url: string;
  genesisJson: Record<string, unknown>;
  genesisHash: string;
  dataPath: string;
}

let running: Running | undefined;

test.before(async () => {
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-devp2p-'));
  const [key] = validatorKeys(1);
  const genesisJson = buildSimGenesis({ validators: [key.address], startTimeSeconds: Math.floor(Date.now() / 1000), chainId: CHAIN_ID });
  const opts = parseNodeOptions([
    '--data-path', dataPath,
    '--p2p-port', '0', '--p2p-interface', '127.0.0.1', '--p2p-host', '127.0.0.1', '--discovery-enabled=false',
    '--rpc-http-enabled', '--rpc-http-port', '0', '--rpc-http-api', 'ETH,NET,WEB3,ADMIN',
  ]);
  const live = await startLiveNode(opts, {
    genesis: parseGenesis(genesisJson),
    privateKey: key.privateKey,
    log: new LiveLog({ name: 'devp2p-interop', level: 'warn' }),
  });
  const url = `http://127.0.0.1:${live.servers.httpPort}`;
  running = { live, url, genesisJson, dataPath, genesisHash: '' };
  await waitFor('the node to make blocks', async () => (Number(await rpc(url, 'eth_blockNumber')) >= MIN_HEAD ? true : undefined), 15_000, 200);
  running.genesisHash = (await rpc(url, 'eth_getBlockByNumber', ['0x0', false])).hash;
});

test.after.always(async () => {
  await running?.live.close();
  if (running) rmSync(running.dataPath, { recursive: true, force: true });
});

function startPeer(t: import('ava').ExecutionContext, keyByte: number, clientId: string): Devp2pPeer {
  const peer = new Devp2pPeer({ genesis: running!.genesisJson, genesisHash: unhex(running!.genesisHash), privateKey: new Uint8Array(32).fill(keyByte), clientId });
  t.teardown(() => peer.destroy());
  return peer;
}

let nextRequestId = 100n;

async function getHeaders(node: DialedNode, origin: number | Uint8Array, amount: number): Promise<Uint8Array[][]> {
  const id = nextRequestId++;
  const answer = response(node, Eth.BlockHeaders, id, REPLY_MS);
  node.eth.sendMessage(Eth.GetBlockHeaders, [id, [origin, amount, 0, 0]]);
  return (await answer) as Uint8Array[][];
}

/** The node's admin_peers entry for this devp2p peer (waits for it to appear). */
function listedPeer(url: string, devp2p: Devp2pPeer): Promise<any> {
  return waitFor('the node to list the devp2p peer', async () => (await rpc<any[]>(url, 'admin_peers')).find((p) => p.id === hex(devp2p.rlpx.id)), REPLY_MS);
}

/** The block numbers the node announced to us (NewBlock and NewBlockHashes), with their hashes. */
function announced(node: DialedNode): { number: number; hash: string }[] {
  const out: { number: number; hash: string }[] = [];
  for (const m of node.inbound) {
    if (m.code === Eth.NewBlock) {
      const header = (m.payload as Uint8Array[][][])[0][0];
      out.push({ number: Number(scalar(header[HeaderField.number])), hash: hex(qbftOnchainHash(header)) });
    } else if (m.code === Eth.NewBlockHashes) {
      for (const [hash, number] of m.payload as Uint8Array[][]) out.push({ number: Number(scalar(number)), hash: hex(hash) });
    }
  }
  return out;
}

test.serial('devp2p dials the node: eth/68 and istanbul/100 in Hello, Status both ways, headers 1..3 match JSON-RPC', async (t) => {
  t.timeout(20_000);
  const { live, url, genesisHash } = running!;
  const devp2p = startPeer(t, 0x51, 'ethereumjs-devp2p/interop');
  // The node sends its Status as soon as we are connected: its head then is at least this.
  const headBeforeDial = Number(await rpc(url, 'eth_blockNumber'));
  const node = await devp2p.dial(live.enode!);

  // The node's Hello, as devp2p decoded it.
  const hello = node.peer.getHelloMessage()!;
  t.is(hello.protocolVersion, 5);
  t.deepEqual(hello.capabilities, [
    { name: 'eth', version: 68 },
    { name: 'istanbul', version: 100 },
  ]);
  t.is(hello.clientId, await rpc(url, 'web3_clientVersion'));
  t.is(hello.port, Number(new URL(live.enode!.replace('enode', 'http')).port));
  t.is(hex(hello.id), '0x' + live.enode!.slice('enode://'.length, 'enode://'.length + 128));
  t.is(node.eth.getVersion(), 68);

  // The node's view of us: both capabilities shared.
  const us = await listedPeer(url, devp2p);
  t.is(us.name, 'ethereumjs-devp2p/interop');
  t.deepEqual(us.caps, ['eth/68', 'istanbul/100']);

  // Status: devp2p sends a fresh node's (td 1, head = genesis) and checks the node's against its
  // own chain view; the 'status' event only fires when network id, genesis and fork id all pass.
  const theirStatus = new Promise<any>((resolve) => node.eth.events.once('status', resolve));
  node.eth.sendStatus({ td: Uint8Array.of(1), bestHash: unhex(genesisHash), genesisHash: unhex(genesisHash) });
  const status = await within(REPLY_MS, "devp2p to accept the node's Status", theirStatus);
  const rawStatus = node.eth['_peerStatus'] as unknown as Uint8Array[];
  t.is(Number(scalar(rawStatus[0])), 68, 'Status protocol version');
  t.is(scalar(status.chainId as Uint8Array), BigInt(CHAIN_ID), 'network id');
  t.is(hex(status.genesisHash), genesisHash);
  const [forkHash, forkNext] = status.forkId as Uint8Array[];
  t.is(hex(forkHash), devp2p.common.forkHash(devp2p.common.hardfork()), 'EIP-2124 fork hash as ethereumjs computes it from the genesis');
  t.is(forkNext.length, 0, 'no future fork scheduled');
  const best = await rpc(url, 'eth_getBlockByHash', [hex(status.bestHash), false]);
  t.truthy(best, 'the Status best hash is a block JSON-RPC knows');
  t.is((await rpc(url, 'eth_getBlockByNumber', [best.number, false])).hash, hex(status.bestHash), 'and a canonical one');
  t.true(Number(best.number) >= headBeforeDial, 'the Status head is not behind eth_blockNumber read before we dialled');
  t.is(scalar(status.td), BigInt(best.totalDifficulty), 'Status td is the total difficulty of its best block');

  // Headers 1..3 by number.
  const headers = await getHeaders(node, 1, 3);
  t.is(headers.length, 3);
  for (let i = 0; i < headers.length; i++) {
    const h = headers[i];
    const block = await rpc(url, 'eth_getBlockByNumber', [`0x${(i + 1).toString(16)}`, false]);
    const hash = hex(qbftOnchainHash(h));
    t.is(hash, block.hash, `block ${i + 1}: QBFT on-chain hash of the served header`);
    t.not(hex(keccak(RLP.encode(h))), block.hash, `block ${i + 1}: the served header carries its seals, so its plain keccak differs`);
    t.is(qbftSeals(h).length, 1, `block ${i + 1}: one committed seal (one validator)`);
    for (const name of QUANTITY_FIELDS) t.is(quantity(h[HeaderField[name]]), block[name], `block ${i + 1}: ${name}`);
    for (const name of DATA_FIELDS) t.is(hex(h[HeaderField[name]]), block[name], `block ${i + 1}: ${name}`);
    if (i > 0) t.is(hex(h[HeaderField.parentHash]), hex(qbftOnchainHash(headers[i - 1])), `block ${i + 1} chains to block ${i}`);
  }

  // The genesis header by hash: hashed plainly, it is the Status genesis hash.
  const [genesisHeader] = await getHeaders(node, unhex(genesisHash), 1);
  t.is(hex(keccak(RLP.encode(genesisHeader))), genesisHash);

  // A compatible peer is told about new blocks, with hashes JSON-RPC agrees with.
  const afterStatus = Number(await rpc(url, 'eth_blockNumber'));
  const news = await waitFor('a block announcement', () => announced(node).find((a) => a.number > afterStatus), 5000);
  t.is(news.hash, (await rpc(url, 'eth_getBlockByNumber', [`0x${news.number.toString(16)}`, false])).hash);
});

test.serial('planted negative: a Status with a wrong genesis hash; the node keeps the peer but treats it as another network', async (t) => {
  t.timeout(20_000);
  const { live, url, genesisHash } = running!;
  const devp2p = startPeer(t, 0x52, 'ethereumjs-devp2p/wrong-genesis');
  const node = await devp2p.dial(live.enode!);
  let dropped: { reason: number | undefined } | undefined;
  void node.removed.then((r) => (dropped = r));

  const wrongGenesis = keccak(new TextEncoder().encode('not this chain'));
  t.not(hex(wrongGenesis), genesisHash);
  devp2p.sendRawStatus(node, [68, CHAIN_ID, 1, wrongGenesis, wrongGenesis, [unhex(devp2p.common.forkHash(devp2p.common.hardfork())), new Uint8Array(0)]]);

  // The node handles a peer's messages in order: once this is answered, the Status is handled.
  // Besu would have disconnected by now (SUBPROTOCOL_TRIGGERED, 0x10); this node still serves us.
  const served = await getHeaders(node, 1, 1);
  t.is(hex(qbftOnchainHash(served[0])), (await rpc(url, 'eth_getBlockByNumber', ['0x1', false])).hash);
  const headAtStatus = Number(await rpc(url, 'eth_blockNumber'));

  // Two more blocks: none of them is announced to a peer on another network.
  await waitFor('two more blocks', async () => (Number(await rpc(url, 'eth_blockNumber')) >= headAtStatus + 2 ? true : undefined), 6000, 100);
  // Let an announcement of the latest block (sent right after its import) arrive if there is one.
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.deepEqual(announced(node).filter((a) => a.number > headAtStatus), [], 'no block announcements after the wrong-genesis Status');
  t.is(dropped, undefined, 'the node did not disconnect');
  t.truthy(await listedPeer(url, devp2p), 'the peer is still listed');

  const removed = node.removed;
  devp2p.destroy();
  t.like(await within(REPLY_MS, 'our disconnect', removed), { reason: DISCONNECT_REASON.CLIENT_QUITTING, byUs: true });
});
