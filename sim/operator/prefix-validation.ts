/**
 * Imports the history of a rehearsal at a real height under one genesis, as a node would, before
 * the nodes of the run hold it: it is not trusted because prefix-builder.ts made it.
 *
 * Around every change of the genesis' rules, and wherever the history's blocks stop being copies of
 * one template, blocks go through the node's own import (QbftNode.importBlock on a scratch node:
 * every header rule, the commit seals, execution and the state root). Between them, each block is
 * a copy of the template of a block fully imported under the same rules, whose execution left the
 * state as it was; each is hashed again from its header (once for all the genesis files: the hash
 * does not depend on them) and checked against its parent with the
 * node's header rules (node/chain/header-rules.ts), and every SEAL_CHECK_EVERY-th block (and the
 * last SEAL_CHECK_TAIL) has its seals recovered too, as Besu's fast sync checks the seals of a
 * share of the headers only (BftCommitSealsValidationRule is left out of light validation). The
 * first block that fails is imported through the node again, so the reason given is the node's.
 */
import { bytesToBigInt, bytesToHex, equalBytes, type Hex } from '../../node/crypto/bytes.ts';
import type { Genesis } from '../../node/chain/genesis.ts';
import type { BugSwitches } from '../../node/bugs/bug-switches.ts';
import { decodeExtraData } from '../../node/chain/extra-data.ts';
import { validateHeader, type HeaderContext, type HeaderFacts } from '../../node/chain/header-rules.ts';
import { QbftForkSchedule } from '../../node/chain/fork-schedule.ts';
import { recoverAddressCached } from '../../node/consensus/qbft/signer-cache.ts';
import type { TrieNodeStore } from '../../node/execution/state-db.ts';
import type { QbftNode } from '../../node/node.ts';
import { StatePersistence } from '../../node/execution/state-persistence.ts';
import type { NodeKey } from '../keys.ts';
import { SimStore } from '../storage.ts';
import { SIM_START_TIME_MS } from '../world.ts';
import type { BlockSchedule } from './block-schedule.ts';
import type { PrefixHistory } from './prefix-history.ts';
import { ruleBoundaries } from './rule-boundaries.ts';
import { startScratchNode } from './scratch-node.ts';

export const SEAL_CHECK_EVERY = 100;
export const SEAL_CHECK_TAIL = 16;

export interface PrefixCheck {
  genesis: Genesis;
  sched: BlockSchedule;
  bugs: BugSwitches;
  db: TrieNodeStore;
  /** The scratch node's key (it validates nothing itself). */
  key: NodeKey;
}

export interface PrefixVerdict {
  /** Blocks 1..height are valid under the genesis. */
  height: number;
  /** The first block that is not, with the node's reason. */
  rejected?: { number: number; reason: string };
  /** Blocks imported through the node's own import. */
  imported: number;
  /** Blocks whose seals were recovered. */
  sealsChecked: number;
}

/** The entries of a store holding the history up to `height` with the state of that block (StatePersistence's own format). */
export async function stateImage(history: PrefixHistory, height: number, stateRoot: Hex, db: TrieNodeStore): Promise<Array<{ key: string; value: Uint8Array }>> {
  const scratch = new SimStore();
  if (height > 0) {
    const persistence = new StatePersistence({ store: scratch, db, pin: () => {}, unpin: () => {} });
    await persistence.persist({ number: height, hash: history.hashAt(height), stateRoot }, []);
  }
  return scratch.keysSync('').map((key) => ({ key, value: scratch.getSync(key)! }));
}

function stateRootAt(history: PrefixHistory, n: number): Hex {
  return bytesToHex(history.template(history.templateOf(n)).header[3]!);
}

class Validation {
  readonly verdict: PrefixVerdict = { height: 0, imported: 0, sealsChecked: 0 };
  private readonly boundaries: ReadonlySet<number>;
  private readonly schedule: QbftForkSchedule;

  constructor(
    private readonly history: PrefixHistory,
    private readonly o: PrefixCheck,
  ) {
    this.boundaries = ruleBoundaries(o.genesis, o.sched, history.height);
    this.schedule = new QbftForkSchedule(o.genesis);
  }

  /** Whether block n is a copy of its parent's template under unchanged rules. */
  private copyAt(n: number): boolean {
    return n > 1 && !this.boundaries.has(n) && this.history.templateOf(n) === this.history.templateOf(n - 1);
  }

  async run(): Promise<PrefixVerdict> {
    const top = this.history.height;
    let n = 1;
    while (n <= top) {
      const full = await this.importThroughNode(n);
      if (!full) return this.verdict;
      n = full.next;
      if (n > top || !this.copyAt(n)) continue;
      let parent = this.factsOf(n - 1, false);
      const context = this.copyContext(full.validators, n, parent);
      // The stretch's first parent hash is read from the store (the ancestry rule compares it with the parent's header hash).
      let parentChecked = false;
      for (; n <= top && this.copyAt(n); n++) {
        const checkSeals = n % SEAL_CHECK_EVERY === 0 || n > top - SEAL_CHECK_TAIL;
        const facts = this.factsOf(n, checkSeals, parentChecked ? parent : undefined);
        const problem = this.checkCopy(facts, parent, context, checkSeals);
        if (problem) return this.confirmRejection(n, problem);
        this.verdict.height = n;
        parent = facts;
        parentChecked = true;
      }
    }
    return this.verdict;
  }

  /** The header context of the copies from block n on: their rules and validators are those of block n (no change before the next boundary). */
  private copyContext(validators: Hex[], n: number, parent: HeaderFacts): HeaderContext {
    const params = this.schedule.paramsAt(n, this.history.timestampAt(n));
    return {
      parent,
      validatorsAfterParent: validators,
      contractMode: params.validatorSelectionMode === 'contract',
      blockPeriodSeconds: params.blockPeriodSeconds,
      blockPeriodMilliseconds: params.blockPeriodMilliseconds,
      nowSeconds: SIM_START_TIME_MS / 1000,
      londonBlock: this.o.genesis.forkBlocks['london'],
      // Set for each block (checkCopy).
      committedSealHash: () => new Uint8Array(32),
      recoverSealer: (hash, seal) => {
        const signer = recoverAddressCached(hash, seal);
        if (!signer) throw new Error('unrecoverable seal');
        return signer;
      },
      checkSeals: false,
    };
  }

  private async scratchNodeAt(height: number): Promise<QbftNode> {
    const store = new SimStore();
    if (height > 0) {
      store.writeSync(await stateImage(this.history, height, stateRootAt(this.history, height), this.o.db));
      store.history = this.history.view(height);
    }
    return startScratchNode({ genesis: this.o.genesis, key: this.o.key, store, db: this.o.db, bugs: this.o.bugs });
  }

  /**
   * Imports blocks from `from` through a node until one whose execution shows its template leaves
   * the state as it was (a copy of its parent's template); returns the next block and the
   * validators after the last one imported, or undefined at a rejection.
   */
  private async importThroughNode(from: number): Promise<{ next: number; validators: Hex[] } | undefined> {
    const node = await this.scratchNodeAt(from - 1);
    try {
      let n = from;
      do {
        const outcome = await node.importBlock(this.history.blockAt(n, node.common));
        if (!outcome.ok) {
          this.verdict.rejected = { number: n, reason: outcome.reason };
          return undefined;
        }
        this.verdict.imported++;
        this.verdict.sealsChecked++;
        this.verdict.height = n;
        n++;
      } while (n <= this.history.height && !this.copyAt(n - 1));
      return { next: n, validators: await node.validatorsAfter(node.head()) };
    } finally {
      node.stop();
    }
  }

  /**
   * Header facts of block n, its hash computed again from its header; seals only when they are to
   * be checked. Its parent hash is the stored one, the same bytes as `parent`'s (checked with it).
   */
  private factsOf(n: number, withSeals: boolean, parent?: HeaderFacts): HeaderFacts & { hashBytes: Uint8Array } {
    const t = this.templateFacts(this.history.templateOf(n));
    const hashBytes = this.history.headerHash(n);
    return {
      number: n,
      parentHash: parent?.hash ?? bytesToHex(this.history.hashBytesAt(n - 1)),
      hash: bytesToHex(hashBytes),
      hashBytes,
      timestamp: this.history.timestampAt(n),
      gasLimit: t.gasLimit,
      gasUsed: t.gasUsed,
      baseFeePerGas: t.baseFeePerGas,
      mixHash: t.mixHash,
      difficulty: t.difficulty,
      coinbase: this.history.coinbaseAt(n),
      extraValidators: t.extraValidators,
      vote: t.vote,
      round: t.round,
      seals: withSeals ? this.history.extraAt(n).seals : [],
    };
  }

  private readonly templates = new Map<number, Omit<HeaderFacts, 'number' | 'parentHash' | 'hash' | 'timestamp' | 'coinbase' | 'seals'>>();

  private templateFacts(id: number) {
    let facts = this.templates.get(id);
    if (!facts) {
      const h = this.history.template(id).header;
      const extra = decodeExtraData(h[12]!);
      facts = {
        gasLimit: bytesToBigInt(h[9]!),
        gasUsed: bytesToBigInt(h[10]!),
        ...(h[15] !== undefined ? { baseFeePerGas: bytesToBigInt(h[15]) } : {}),
        mixHash: bytesToHex(h[13]!),
        difficulty: bytesToBigInt(h[7]!),
        extraValidators: extra.validators,
        ...(extra.vote ? { vote: extra.vote } : {}),
        round: extra.round,
      };
      this.templates.set(id, facts);
    }
    return facts;
  }

  private checkCopy(facts: HeaderFacts & { hashBytes: Uint8Array }, parent: HeaderFacts, context: HeaderContext, checkSeals: boolean): string | undefined {
    const n = facts.number;
    if (!equalBytes(facts.hashBytes, this.history.hashBytesAt(n))) return `block ${n}'s stored hash is not the hash of its header (${facts.hash})`;
    if (checkSeals) this.verdict.sealsChecked++;
    context.parent = parent;
    context.checkSeals = checkSeals;
    // Round 0: the committed-seal hash is the on-chain hash.
    context.committedSealHash = () => facts.hashBytes;
    const verdict = validateHeader(facts, context);
    return verdict.ok ? undefined : `${verdict.rule}: ${verdict.reason}`;
  }

  /** A copy failed the header rules: the node's own import says why (it must reject it too). */
  private async confirmRejection(n: number, problem: string): Promise<PrefixVerdict> {
    const node = await this.scratchNodeAt(n - 1);
    try {
      const outcome = await node.importBlock(this.history.blockAt(n, node.common));
      if (outcome.ok) throw new Error(`history block ${n}: the header rules reject it (${problem}) but the node imports it`);
      this.verdict.rejected = { number: n, reason: outcome.reason };
      return this.verdict;
    } finally {
      node.stop();
    }
  }
}

export function validatePrefix(history: PrefixHistory, o: PrefixCheck): Promise<PrefixVerdict> {
  return new Validation(history, o).run();
}
