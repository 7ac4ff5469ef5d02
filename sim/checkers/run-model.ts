/**
 * The state of a run as the checkers reconstruct it from observations alone: who is who and who
 * is honest, which nodes are up, paused or cut off, each node's incarnation (a restarted node has
 * lost its memory), head and current round, the blocks imported so far with their validator sets
 * (tracked from the genesis), and which block each proposal digest names.
 *
 * The suite feeds every observation to the model before any checker sees it.
 */
import type { BlockImported, Observation, RunNode } from './observation.ts';
import { maxFaulty } from './toolkit/bft-math.ts';
import { decodeBlock, proposalDigest, type DecodedBlock } from './toolkit/block.ts';
import { keccak, toHex, type Hex } from './toolkit/crypto.ts';
import { readGenesisRules, type GenesisRules } from './toolkit/genesis-rules.ts';
import { ValidatorTracker, type TrackedBlock } from './toolkit/validator-tracker.ts';
import { initialStatus, NodeStatusTracker, type NodeStatus } from '../run-model/node-status.ts';

export interface NodeState extends NodeStatus {
  readonly name: string;
  readonly address: Hex;
  readonly role: RunNode['role'];
  faultyAtStart: boolean;
  /** Restarted with rules of its own: misconfigured from then on. */
  reconfigured: boolean;
}

/**
 * `tracked` is the block's first copy (its identity and validator set); `block` is the copy these
 * bytes hold, whose round and seals may differ (the on-chain hash leaves them out).
 */
export type ImportedBlock = { ok: true; tracked: TrackedBlock; block: DecodedBlock; rlpKey: string } | { ok: false; error: string };

export class RunModel {
  readonly rules: GenesisRules;
  readonly tracker: ValidatorTracker;
  readonly nodes = new Map<string, NodeState>();
  private readonly byAddress = new Map<Hex, NodeState[]>();
  /** The round timeout in ms: the run-started line's, else the genesis file's. */
  requestTimeoutMs: number;
  /** Up, paused, head and round of each node, the partition and the clogged links: the run model's node status, shared with the scenario expectations. */
  readonly status = new NodeStatusTracker((name) => this.node(name));
  /** The first block an honest node imported at each height (on-chain hash). */
  readonly honestBlockAt = new Map<number, Hex>();
  private readonly importsByRlp = new Map<string, ImportedBlock>();
  private readonly digests = new Map<Hex, Hex>();
  private readonly reportedHashes = new Map<Hex, Hex>();
  private readonly proposed = new WeakMap<Uint8Array, DecodedBlock | null>();
  /** The model and every checker ask about the same observation's bytes: hash them once. */
  private readonly importedMemo = new WeakMap<Uint8Array, ImportedBlock>();

  constructor(genesis: Record<string, unknown>) {
    this.rules = readGenesisRules(genesis);
    this.tracker = new ValidatorTracker(this.rules);
    this.requestTimeoutMs = this.rules.requestTimeoutSeconds * 1000;
  }

  observe(o: Observation): void {
    switch (o.type) {
      case 'run-started':
        for (const n of o.nodes) this.addNode(n);
        if (o.requestTimeoutSeconds !== undefined) this.requestTimeoutMs = o.requestTimeoutSeconds * 1000;
        break;
      case 'node-started':
      case 'fault':
      case 'round-started':
        this.status.add(o.line, o.atMs);
        break;
      case 'node-reconfigured':
        this.node(o.node).reconfigured = true;
        break;
      case 'block-imported': {
        const imported = this.imported(o);
        if (imported.ok && this.honest(o.node) && !this.honestBlockAt.has(o.number)) this.honestBlockAt.set(o.number, imported.tracked.block.onchainHash);
        this.status.add(o.line, o.atMs);
        break;
      }
      case 'message':
        if (!('error' in o.decoded) && o.decoded.kind === 'proposal') this.learnBlock(o.decoded.signed.payload.blockRlp);
        if (!('error' in o.decoded) && o.decoded.kind === 'round-change' && o.decoded.preparedBlockRlp) this.learnBlock(o.decoded.preparedBlockRlp);
        break;
      default:
        break;
    }
  }

  /** Current partition groups; undefined when the network is whole. */
  get partition(): string[][] | undefined {
    return this.status.partition;
  }

  /** Directed links clogged by a clog step and not yet unclogged. */
  get clogged(): ReadonlySet<string> {
    return this.status.clogged;
  }

  node(name: string): NodeState {
    let n = this.nodes.get(name);
    // A node the run-started line did not list: judged as honest, with an unknown address.
    if (!n) n = this.addNode({ name, address: `0x${'0'.repeat(40)}` as Hex, role: 'observer', faulty: false });
    return n;
  }

  /** Not Byzantine, not a twin, not misconfigured (at start, or by a restart with other rules). */
  honest(name: string): boolean {
    const n = this.nodes.get(name);
    return n !== undefined && !n.faultyAtStart && !n.reconfigured;
  }

  /** Every node holding this key is honest (a twinned key is not). */
  honestSigner(address: Hex): boolean {
    const holders = this.byAddress.get(address);
    return holders !== undefined && holders.every((n) => this.honest(n.name));
  }

  holdersOf(address: Hex): NodeState[] {
    return this.byAddress.get(address) ?? [];
  }

  nameOf(address: Hex): string {
    const holders = this.byAddress.get(address);
    return holders && holders.length > 0 ? holders.map((n) => n.name).join('/') : address;
  }

  /** The block a node imported, decoded and placed in the validator tracker (once per distinct RLP). */
  imported(o: BlockImported): ImportedBlock {
    if (!o.rlp) return { ok: false, error: `the block ${o.hash} could not be fetched from ${o.node}'s chain` };
    const memo = this.importedMemo.get(o.rlp);
    if (memo) return memo;
    const key = toHex(keccak(o.rlp));
    let got = this.importsByRlp.get(key);
    if (!got) {
      try {
        const block = decodeBlock(o.rlp);
        got = { ok: true, tracked: this.tracker.add(block), block, rlpKey: key };
        this.reportedHashes.set(o.hash, block.onchainHash);
      } catch (err) {
        got = { ok: false, error: `the block does not decode: ${(err as Error).message}` };
      }
      this.importsByRlp.set(key, got);
    }
    this.importedMemo.set(o.rlp, got);
    return got;
  }

  /** The on-chain hash (round- and seal-independent identity) of the block a digest names, if a proposal or round change carried it. */
  identityOfDigest(digest: Hex): Hex | undefined {
    return this.digests.get(digest);
  }

  /** The number of a block known by the hash a node reported for it. */
  numberOfReported(hash: Hex): number | undefined {
    const identity = this.reportedHashes.get(hash) ?? hash;
    return this.tracker.get(identity)?.block.number;
  }

  /** The timestamp (s) of the block honest nodes imported first at `number` (the genesis' for 0). */
  timestampOfHonestBlock(number: number): number | undefined {
    if (number === 0) return this.rules.genesisTimestampSeconds;
    const hash = this.honestBlockAt.get(number);
    return hash === undefined ? undefined : this.tracker.get(hash)?.block.timestamp;
  }

  /** Validators for `height`, on the block honest nodes imported first at height - 1. */
  validatorsForHeight(height: number): Hex[] | undefined {
    if (height === 1) return this.tracker.validatorsFor(1, `0x${'0'.repeat(64)}` as Hex).validators;
    const parent = this.honestBlockAt.get(height - 1);
    return parent === undefined ? undefined : this.tracker.validatorsFor(height, parent).validators;
  }

  /** Validators whose key no honest node holds, counted once per key (Byzantine, twinned, misconfigured). */
  faultyKeys(validators: readonly Hex[]): number {
    return validators.filter((v) => !this.honestSigner(v)).length;
  }

  /** f for a validator set. */
  static f(validators: readonly Hex[]): number {
    return maxFaulty(validators.length);
  }

  private addNode(n: RunNode): NodeState {
    const state: NodeState = {
      name: n.name,
      address: n.address.toLowerCase() as Hex,
      role: n.role,
      faultyAtStart: n.faulty,
      reconfigured: false,
      ...initialStatus(),
    };
    this.nodes.set(n.name, state);
    const list = this.byAddress.get(state.address) ?? [];
    list.push(state);
    this.byAddress.set(state.address, list);
    return state;
  }

  /** A block carried by a message, decoded once per buffer; undefined when it does not decode. */
  proposedBlock(rlp: Uint8Array): DecodedBlock | undefined {
    if (this.proposed.has(rlp)) return this.proposed.get(rlp) ?? undefined;
    let block: DecodedBlock | null = null;
    try {
      block = decodeBlock(rlp);
    } catch {
      block = null;
    }
    this.proposed.set(rlp, block);
    return block ?? undefined;
  }

  private learnBlock(rlp: Uint8Array): void {
    const block = this.proposedBlock(rlp);
    // a malformed proposed block names nothing
    if (block && !('error' in block.extra)) this.digests.set(proposalDigest(block), block.onchainHash);
  }
}
