/**
 * A peer built from @ethereumjs/devp2p 10.0.0 (an independent devp2p implementation) that dials a
 * qbft-lab node over RLPx with eth/68 and istanbul/100, plus the independent checks the interop
 * test needs: a JSON-RPC client, Besu's QBFT on-chain block hash computed from raw header fields,
 * and a bounded log of what the node sends on eth.
 */
import { createCommonFromGethGenesis, type Common, type GethGenesis } from '@ethereumjs/common';
import { DISCONNECT_REASON, ETH, Peer, RLPx, SNAP } from '@ethereumjs/devp2p';
import { RLP } from '@ethereumjs/rlp';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { compress } from 'snappyjs';

export { DISCONNECT_REASON, ETH };

/** eth message codes (devp2p caps/eth.md), relative to the capability's offset. */
export const Eth = { Status: 0x00, NewBlockHashes: 0x01, GetBlockHeaders: 0x03, BlockHeaders: 0x04, NewBlock: 0x07 } as const;

/** Header field positions (Yellow Paper order; London adds baseFee at 15). */
export const HeaderField = {
  parentHash: 0, sha3Uncles: 1, miner: 2, stateRoot: 3, transactionsRoot: 4, receiptsRoot: 5, logsBloom: 6,
  difficulty: 7, number: 8, gasLimit: 9, gasUsed: 10, timestamp: 11, extraData: 12, mixHash: 13, nonce: 14, baseFeePerGas: 15,
} as const;

export const hex = (b: Uint8Array): string => '0x' + Buffer.from(b).toString('hex');
export const unhex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h.replace(/^0x/, ''), 'hex'));
/** An RLP scalar as a bigint (empty bytes are 0). */
export const scalar = (b: Uint8Array): bigint => (b.length === 0 ? 0n : BigInt(hex(b)));
export const keccak = (b: Uint8Array): Uint8Array => keccak_256(b);

/**
 * Besu's on-chain hash of a QBFT block (BftBlockHashing, on-chain variant): keccak of the header
 * RLP with extraData re-encoded as [vanity, validators, vote, round 0, no seals]. The header as
 * served still carries its committed seals, so its plain keccak is not the block hash.
 * Genesis (number 0) is hashed as it is.
 */
export function qbftOnchainHash(fields: Uint8Array[]): Uint8Array {
  if (fields[HeaderField.number].length === 0) return keccak(RLP.encode(fields));
  const extra = RLP.decode(fields[HeaderField.extraData]) as unknown[];
  if (!Array.isArray(extra) || extra.length !== 5) throw new Error('extraData is not a 5-item QBFT list');
  const copy = [...fields];
  copy[HeaderField.extraData] = RLP.encode([extra[0], extra[1], extra[2], new Uint8Array(0), []] as never);
  return keccak(RLP.encode(copy));
}

/** The committed seals in a QBFT header's extraData. */
export function qbftSeals(fields: Uint8Array[]): Uint8Array[] {
  return (RLP.decode(fields[HeaderField.extraData]) as unknown as Uint8Array[][])[4];
}

export async function rpc<T = any>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** Polls `probe` every `everyMs` until it returns a value other than undefined, or throws after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * A devp2p sub-protocol for Besu's istanbul/100 (message space 22) so the capability is shared.
 * devp2p 10.0.0 does not export its Protocol base class; SNAP gives the plumbing and arms no
 * Status timer. Messages are only counted: a peer that is not a validator takes no part in QBFT.
 */
export class IstanbulCapability extends SNAP {
  static readonly capability = { name: 'istanbul', version: 100, length: 22, constructor: IstanbulCapability };
  received = 0;

  override _handleMessage(): void {
    this.received++;
  }
}

/** One eth message the node sent us, its payload RLP-decoded. */
export interface EthInbound {
  code: number;
  payload: unknown;
}

const MAX_LOGGED_MESSAGES = 512;

export interface DialedNode {
  peer: Peer;
  eth: ETH;
  istanbul: IstanbulCapability;
  /** eth messages after Status, oldest first; at most MAX_LOGGED_MESSAGES are kept. */
  inbound: EthInbound[];
  /** Resolves with the disconnect reason when the node drops us (or we leave). */
  removed: Promise<{ reason: number | undefined; byUs: boolean | undefined }>;
}

export interface Devp2pPeerOptions {
  /** The network's genesis JSON (Besu/geth config format). */
  genesis: Record<string, unknown>;
  /** The genesis block hash, as the node reports it over JSON-RPC. */
  genesisHash: Uint8Array;
  privateKey: Uint8Array;
  clientId: string;
}

/**
 * devp2p's view of the chain, built by ethereumjs from the same genesis JSON: chain id, the
 * hardfork schedule, and EIP-2124 fork hashes from the genesis hash.
 */
export function commonForGenesis(genesis: Record<string, unknown>, genesisHash: Uint8Array): Common {
  return createCommonFromGethGenesis(genesis as unknown as GethGenesis, { chain: 'qbft-lab', genesisHash });
}

export class Devp2pPeer {
  readonly rlpx: RLPx;
  readonly common: Common;

  constructor(readonly opts: Devp2pPeerOptions) {
    this.common = commonForGenesis(opts.genesis, opts.genesisHash);
    this.rlpx = new RLPx(opts.privateKey, {
      capabilities: [ETH.eth68, IstanbulCapability.capability],
      common: this.common,
      clientId: new TextEncoder().encode(opts.clientId),
      listenPort: null,
      maxPeers: 1,
      timeout: 10_000,
    });
    // Errors also surface as disconnects, which the tests assert on.
    this.rlpx.events.on('peer:error', () => {});
    this.rlpx.events.on('error', () => {});
  }

  /** Dials the enode and resolves once both Hellos are exchanged and the sub-protocols exist. */
  async dial(enode: string): Promise<DialedNode> {
    const m = /^enode:\/\/([0-9a-f]{128})@([^:]+):(\d+)$/.exec(enode);
    if (!m) throw new Error(`unexpected enode URL ${enode}`);
    const added = new Promise<Peer>((resolve) => this.rlpx.events.once('peer:added', resolve));
    const removed = new Promise<{ reason: number | undefined; byUs: boolean | undefined }>((resolve) =>
      this.rlpx.events.once('peer:removed', (_peer: Peer, reason: unknown, byUs: unknown) => resolve({ reason: reason as number | undefined, byUs: byUs as boolean | undefined })),
    );
    await this.rlpx.connect({ id: unhex(m[1]), address: m[2], tcpPort: Number(m[3]) });
    const peer = await within(5000, 'the RLPx handshake and Hellos', added);
    const protocols = peer.getProtocols();
    const eth = protocols.find((p): p is ETH => p instanceof ETH);
    const istanbul = protocols.find((p): p is IstanbulCapability => p instanceof IstanbulCapability);
    if (!eth || !istanbul) throw new Error(`shared protocols: ${protocols.map((p) => p.constructor.name).join(', ')}`);
    const inbound: EthInbound[] = [];
    eth.events.on('message', (code: number, payload: unknown) => {
      if (inbound.length < MAX_LOGGED_MESSAGES) inbound.push({ code, payload });
    });
    return { peer, eth, istanbul, inbound, removed };
  }

  /**
   * Sends a Status that devp2p itself would refuse to send or accept (it checks the genesis hash
   * of both sides): the raw message, Snappy-compressed as devp2p's own sends are under p2p v5.
   * devp2p's Status timer is stopped, since its half of the handshake never completes.
   */
  sendRawStatus(node: DialedNode, fields: unknown[]): void {
    clearTimeout(node.eth['_statusTimeoutId'] as NodeJS.Timeout | undefined);
    const send = node.eth['_send'] as (code: number, data: Uint8Array) => void;
    send(Eth.Status, compress(RLP.encode(fields as never)));
  }

  /** Disconnects (CLIENT_QUITTING) and stops; later calls do nothing. */
  destroy(): void {
    if (this.rlpx['_server'] !== null) this.rlpx.destroy();
  }
}

/** Waits for the eth message that answers request `id` (eth/66+ wraps responses as [id, body]). */
export function response(node: DialedNode, code: number, id: bigint, timeoutMs: number): Promise<unknown[]> {
  return within(
    timeoutMs,
    `eth message ${code} answering request ${id}`,
    new Promise<unknown[]>((resolve) => {
      const listener = (c: number, payload: unknown) => {
        if (c !== code || !Array.isArray(payload) || scalar(payload[0] as Uint8Array) !== id) return;
        node.eth.events.off('message', listener);
        resolve(payload[1] as unknown[]);
      };
      node.eth.events.on('message', listener);
    }),
  );
}
