/**
 * Interop with an independent devp2p implementation, @ethereumjs/devp2p 10.0.0, against a real live
 * qbft-lab node (one QBFT validator producing a block a second, RLPx on 127.0.0.1, JSON-RPC over
 * HTTP). devp2p dials the node's enode and must see eth/68 and istanbul/100 in the node's Hello,
 * get through the eth Status exchange with its own checks (network id, genesis hash, EIP-2124
 * fork id from a Common built from the same genesis JSON), and fetch headers whose fields and
 * QBFT block hashes match what JSON-RPC says. The
 * planted negatives send a Status from another network (wrong genesis hash, wrong network id,
 * unknown fork hash) and the node must disconnect with SUBPROTOCOL_TRIGGERED (0x10), as Besu does.
 * A second node whose genesis schedules London far ahead must announce that block as the next
 * fork in its Status fork id, and devp2p must accept it.
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
  commonForGenesis,
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

/** A one-validator live node on its own data directory, making blocks (at least `minHead`). */
async function startNode(genesisJson: Record<string, unknown>, minHead: number): Promise<Running> {
  const dataPath = mkdtempSync(join(tmpdir(), 'qbft-lab-devp2p-'));
  const [key] = validatorKeys(1);
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
  const node: Running = { live, url, genesisJson, dataPath, genesisHash: '' };
  try {
    await waitFor('the node to make blocks', async () => (Number(await rpc(url, 'eth_blockNumber')) >= minHead ? true : undefined), 15_000, 200);
    node.genesisHash = (await rpc(url, 'eth_getBlockByNumber', ['0x0', false])).hash;
  } catch (e) {
    await stopNode(node);
    throw e;
  }
  return node;
}

async function stopNode(node: Running): Promise<void> {
  await node.live.close();
  rmSync(node.dataPath, { recursive: true, force: true });
}

const simGenesis = (): Record<string, unknown> =>
  buildSimGenesis({ validators: [validatorKeys(1)[0].address], startTimeSeconds: Math.floor(Date.now() / 1000), chainId: CHAIN_ID });

test.before(async () => {
  running = await startNode(simGenesis(), MIN_HEAD);
});

test.after.always(async () => {
  if (running) await stopNode(running);
});

function startPeer(t: import('ava').ExecutionContext, keyByte: number, clientId: string, node: Running = running!): Devp2pPeer {
  const peer = new Devp2pPeer({ genesis: node.genesisJson, genesisHash: unhex(node.genesisHash), privateKey: new Uint8Array(32).fill(keyByte), clientId });
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

/**
 * Dials `node`, sends it `status` (raw fields) and expects to be dropped with
 * SUBPROTOCOL_TRIGGERED (0x10) and gone from admin_peers.
 */
async function refusedAsAnotherNetwork(t: import('ava').ExecutionContext, node: Running, keyByte: number, what: string, status: unknown[]): Promise<void> {
  const devp2p = startPeer(t, keyByte, `ethereumjs-devp2p/${what.replaceAll(' ', '-')}`, node);
  const dialed = await devp2p.dial(node.live.enode!);
  await listedPeer(node.url, devp2p);
  devp2p.sendRawStatus(dialed, status);
  t.like(await within(REPLY_MS, `the node to drop a peer with a ${what}`, dialed.removed), { reason: DISCONNECT_REASON.SUBPROTOCOL_ERROR, byUs: false }, what);
  await waitFor('the node to forget the peer', async () => ((await rpc<any[]>(node.url, 'admin_peers')).some((p) => p.id === hex(devp2p.rlpx.id)) ? undefined : true), REPLY_MS);
}

test.serial('planted negatives: a Status with a wrong genesis hash or network id gets Disconnect SUBPROTOCOL_TRIGGERED (0x10)', async (t) => {
  t.timeout(20_000);
  const { genesisHash } = running!;
  const wrongGenesis = keccak(new TextEncoder().encode('not this chain'));
  t.not(hex(wrongGenesis), genesisHash);
  const forkId = [unhex(commonForGenesis(running!.genesisJson, unhex(genesisHash)).forkHash()), new Uint8Array(0)];
  await refusedAsAnotherNetwork(t, running!, 0x52, 'wrong genesis', [68, CHAIN_ID, 1, wrongGenesis, wrongGenesis, forkId]);
  await refusedAsAnotherNetwork(t, running!, 0x53, 'wrong network id', [68, CHAIN_ID + 1, 1, unhex(genesisHash), unhex(genesisHash), forkId]);
});

const LONDON_BLOCK = 1_000_000;

test.serial('a genesis scheduling London far ahead: the Status fork id has next = its block and devp2p accepts it; an unknown fork hash gets 0x10', async (t) => {
  t.timeout(40_000);
  const genesisJson = simGenesis();
  (genesisJson.config as Record<string, unknown>).londonBlock = LONDON_BLOCK;
  const node = await startNode(genesisJson, 1);
  t.teardown(() => stopNode(node));
  const devp2p = startPeer(t, 0x55, 'ethereumjs-devp2p/london-ahead', node);
  const dialed = await devp2p.dial(node.live.enode!);

  // devp2p checks the node's fork id against its own Common (EIP-2124): [crc32(genesis), 0] would be
  // refused as "outdated fork status", since its schedule has London next.
  const theirStatus = new Promise<any>((resolve) => dialed.eth.events.once('status', resolve));
  dialed.eth.sendStatus({ td: Uint8Array.of(1), bestHash: unhex(node.genesisHash), genesisHash: unhex(node.genesisHash) });
  const status = await within(REPLY_MS, "devp2p to accept the node's Status", theirStatus);
  const [forkHash, forkNext] = status.forkId as Uint8Array[];
  t.is(scalar(forkNext), BigInt(LONDON_BLOCK), 'next fork: London');
  t.is(hex(forkHash), devp2p.common.forkHash('berlin'), 'the fork hash of the forks at block 0, as ethereumjs computes it');
  t.not(hex(forkHash), devp2p.common.forkHash('london'));

  // devp2p's Status names London as passed (its Common stands at its latest fork): a peer ahead
  // of us on our schedule, which the node accepts and announces blocks to.
  const afterStatus = Number(await rpc(node.url, 'eth_blockNumber'));
  const news = await waitFor('a block announcement', () => announced(dialed).find((a) => a.number > afterStatus), 5000);
  t.is(news.hash, (await rpc(node.url, 'eth_getBlockByNumber', [`0x${news.number.toString(16)}`, false])).hash);

  await refusedAsAnotherNetwork(t, node, 0x56, 'unknown fork hash', [68, CHAIN_ID, 1, unhex(node.genesisHash), unhex(node.genesisHash), [Uint8Array.of(0xde, 0xad, 0xbe, 0xef), new Uint8Array(0)]]);
});
