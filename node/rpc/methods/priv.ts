/**
 * PRIV and EEA: privacy groups with the node's embedded private transaction manager, as Besu 25.4
 * served them for offchain (Tessera) groups (ethereum/api/.../privacy/methods/priv/*.java,
 * eea/RestrictedOffchainEeaSendRawTransaction.java, websocket/subscription/ for priv_subscribe).
 *
 * - Without `--privacy-enabled` every method answers -50100 "Privacy is not enabled" (Besu's
 *   DisabledPrivacyRpcMethod).
 * - A node that is not a member of a group: its manager holds no payload, so receipts and private
 *   transactions answer null; methods naming the group answer -50100 "Offchain Privacy group does
 *   not exist." (nonces: "Unable to determine nonce for account in group.").
 * - Private logs carry the marker's hash as transactionHash and the marker's block and index.
 * - priv_subscribe([groupId, "logs", filter]) / priv_unsubscribe([groupId, id]) on WebSocket and IPC:
 *   priv_subscription notifications with the group id; logs of blocks a reorganization removed
 *   come again with removed: true. Filters and subscriptions are bounded (PRIVATE_LIMITS); an
 *   idle filter expires after 10 minutes; priv_getLogs has eth_getLogs' range limit; priv_call's
 *   gas is capped as eth_call's.
 */
import { bytesToHex, hexToBytes, type Hex } from '../../crypto/bytes.ts';
import { decodePrivateTransaction, fromBase64, PrivateTransactionError, toBase64, type PrivateTransaction } from '../../privacy/private-transaction.ts';
import { PtmError, type PrivacyGroup } from '../../privacy/private-tx-manager.ts';
import { MAX_PTM_PAYLOAD_BYTES } from '../../privacy/ptm-wire.ts';
import { FILTER_EXPIRY_MS } from './support/filters.ts';
import { PRIVACY_PRECOMPILE_ADDRESS, type NodePrivacy, type PrivateReorg } from '../../privacy/node-privacy.ts';
import type { PrivateReceipt } from '../../privacy/private-state.ts';
import { RpcError, rpcError } from '../errors.ts';
import type { NodeApi } from '../node-api.ts';
import { dataHex, paramLength, parseAddress, parseBlockParam, parseCallObject, parseFilterObject, parseHash32, quantity, topicsMatch, type FilterObject } from '../params.ts';
import type { RpcContext, RpcMethodSpec } from '../registry.ts';
import { privacyError } from './support/privacy-errors.ts';

export const PRIVATE_LIMITS = { filters: 1024, logsPerFilter: 10_000, subscriptionsPerConnection: 1000, subscriptions: 10_000 };

interface PrivateLogResult {
  logIndex: Hex;
  removed: boolean;
  blockNumber: Hex;
  blockHash: Hex;
  transactionHash: Hex;
  transactionIndex: Hex;
  address: Hex;
  data: Hex;
  topics: Hex[];
}

function logsOf(r: PrivateReceipt, removed: boolean): PrivateLogResult[] {
  return r.logs.map(([address, topics, data], i) => ({
    logIndex: quantity(i),
    removed,
    blockNumber: quantity(r.blockNumber),
    blockHash: r.blockHash,
    transactionHash: r.commitmentHash,
    transactionIndex: quantity(r.transactionIndex),
    address: bytesToHex(address),
    data: dataHex(data),
    topics: topics.map((t) => bytesToHex(t)),
  }));
}

function matches(log: PrivateLogResult, f: Pick<FilterObject, 'addresses' | 'topics'>): boolean {
  if (f.addresses.length > 0 && !f.addresses.includes(log.address)) return false;
  return topicsMatch(f.topics, log.topics);
}

function groupResult(g: PrivacyGroup): Record<string, unknown> {
  return { privacyGroupId: g.privacyGroupId, name: g.name, description: g.description, type: g.type, members: g.members };
}

function receiptResult(r: PrivateReceipt): Record<string, unknown> {
  const out: Record<string, unknown> = {
    contractAddress: r.contractAddress ?? null,
    from: r.tx.sender,
    to: r.tx.to ?? null,
    output: dataHex(r.output),
    commitmentHash: r.commitmentHash,
    transactionHash: r.tx.hash,
    privateFrom: toBase64(r.tx.privateFrom),
  };
  if (r.tx.privateFor !== undefined) out.privateFor = r.tx.privateFor.map(toBase64);
  else out.privacyGroupId = r.privacyGroupId;
  out.status = r.status === 1 ? '0x1' : '0x0';
  if (r.revertReason !== undefined) out.revertReason = dataHex(r.revertReason);
  out.logs = logsOf(r, false).map(({ removed: _r, ...log }) => log);
  out.blockHash = r.blockHash;
  out.blockNumber = quantity(r.blockNumber);
  out.transactionIndex = quantity(r.transactionIndex);
  return out;
}

function privateTransactionResult(tx: PrivateTransaction, privacyGroupId: string): Record<string, unknown> {
  const out: Record<string, unknown> = {
    from: tx.sender,
    gas: quantity(tx.gasLimit),
    gasPrice: quantity(tx.gasPrice),
    hash: tx.hash,
    input: dataHex(tx.data),
    nonce: quantity(tx.nonce),
    to: tx.to ?? null,
    value: quantity(tx.value),
    v: quantity(tx.v),
    r: quantity(tx.r),
    s: quantity(tx.s),
    privateFrom: toBase64(tx.privateFrom),
  };
  if (tx.privateFor !== undefined) out.privateFor = tx.privateFor.map(toBase64);
  else out.privacyGroupId = privacyGroupId;
  out.restriction = tx.restriction;
  return out;
}

interface PrivateFilter {
  id: string;
  privacyGroupId: string;
  filter: FilterObject;
  pending: PrivateLogResult[];
  /** Dropped when not polled for FILTER_EXPIRY_MS, as Besu drops idle filters. */
  expiresAt: number;
}

interface PrivateSubscription {
  id: string;
  connectionId: string;
  privacyGroupId: string;
  filter: FilterObject;
  notify: NonNullable<RpcContext['notify']>;
}

const connectionCleanups = new WeakMap<NodeApi, (connectionId: string) => void>();

/** Drops the private subscriptions of a closed WebSocket or IPC connection. */
export function privateConnectionClosed(api: NodeApi, connectionId: string): void {
  connectionCleanups.get(api)?.(connectionId);
}

export function privMethods(api: NodeApi): RpcMethodSpec[] {
  const filters = new Map<string, PrivateFilter>();
  const subscriptions = new Map<string, PrivateSubscription>();
  connectionCleanups.set(api, (connectionId) => {
    for (const [id, s] of subscriptions) if (s.connectionId === connectionId) subscriptions.delete(id);
  });
  let nextSubscription = 1;
  let listening = false;

  const now = () => api.node.clock.nowMs();
  const expireFilters = () => {
    for (const [id, f] of filters) if (now() > f.expiresAt) filters.delete(id);
  };
  const filterOf = (groupId: unknown, id: unknown): PrivateFilter => {
    expireFilters();
    const f = typeof id === 'string' ? filters.get(id) : undefined;
    if (!f || f.privacyGroupId !== groupId) throw rpcError('FILTER_NOT_FOUND');
    f.expiresAt = now() + FILTER_EXPIRY_MS;
    return f;
  };
  /** The manager's refusals as Besu's enclave errors (-50200 and the error's name). */
  const send = (p: NodePrivacy, tx: PrivateTransaction, group: PrivacyGroup): string => {
    try {
      return p.ptm.send(tx.encoded, group);
    } catch (e) {
      if (e instanceof PtmError) throw new RpcError(-50200, e.enclaveError);
      throw e;
    }
  };

  const privacy = (): NodePrivacy => {
    const p = api.node.privacy();
    if (!p) throw privacyError('PRIVACY_NOT_ENABLED');
    if (!listening) {
      listening = true;
      p.onPrivateReorg((event) => onPrivateReorg(event));
    }
    return p;
  };

  const onPrivateReorg = (event: PrivateReorg): void => {
    const batches: Array<[PrivateReceipt, boolean]> = [...event.removed.map((r) => [r, true] as [PrivateReceipt, boolean]), ...event.added.map((r) => [r, false] as [PrivateReceipt, boolean])];
    for (const [receipt, removed] of batches)
      for (const log of logsOf(receipt, removed)) {
        for (const f of filters.values())
          if (f.privacyGroupId === receipt.privacyGroupId && matches(log, f.filter) && f.pending.length < PRIVATE_LIMITS.logsPerFilter) f.pending.push(log);
        for (const s of subscriptions.values())
          if (s.privacyGroupId === receipt.privacyGroupId && matches(log, s.filter))
            try {
              s.notify(s.id, log, s.privacyGroupId);
            } catch {
              // a closed connection's notify may throw; the others still get theirs
            }
      }
  };

  /** A group this node's manager knows (a member's), else Besu's "does not exist". */
  const knownGroup = (p: NodePrivacy, x: unknown): PrivacyGroup => {
    if (typeof x !== 'string' || !fromBase64(x)) throw rpcError('INVALID_PARAMS', 'Invalid privacy group params');
    const g = p.ptm.group(x);
    if (!g || !g.members.includes(p.config.publicKey)) throw privacyError('OFFCHAIN_PRIVACY_GROUP_DOES_NOT_EXIST');
    return g;
  };

  const groupRootAt = (p: NodePrivacy, group: PrivacyGroup, blockParam: unknown) => {
    const entry = blockParam === undefined ? api.head() : api.entryOf(parseBlockParam(blockParam));
    if (!entry) return undefined;
    const root = p.states.rootAt(entry.hash, group.privacyGroupId);
    return root === undefined ? undefined : { entry, root };
  };

  const decodeRaw = (x: unknown): PrivateTransaction => {
    if (typeof x !== 'string') throw rpcError('INVALID_TRANSACTION_PARAMS');
    try {
      return decodePrivateTransaction(hexToBytes(x.startsWith('0x') ? x : `0x${x}`));
    } catch (e) {
      if (e instanceof PrivateTransactionError || e instanceof Error) throw privacyError('DECODE_ERROR');
      throw e;
    }
  };

  /** Besu's checks before a private transaction goes to the manager (offchain, restricted). */
  const prepare = (p: NodePrivacy, tx: PrivateTransaction): PrivacyGroup => {
    if (tx.restriction !== 'restricted') throw privacyError('UNSUPPORTED_PRIVATE_TRANSACTION_TYPE');
    if (toBase64(tx.privateFrom) !== p.config.publicKey) throw privacyError('PRIVATE_FROM_DOES_NOT_MATCH_ENCLAVE_PUBLIC_KEY');
    if (tx.value !== 0n) throw privacyError('VALUE_NOT_ZERO');
    if (tx.chainId !== undefined && tx.chainId !== api.node.config.genesis.chainId) throw rpcError('WRONG_CHAIN_ID');
    if (tx.privateFor !== undefined && tx.privateFor.some((k) => k.length !== 32)) throw rpcError('INVALID_PARAMS', 'Invalid private for params');
    if (tx.encoded.length > MAX_PTM_PAYLOAD_BYTES) throw rpcError('INVALID_PARAMS', `Invalid transaction params (a private transaction is at most ${MAX_PTM_PAYLOAD_BYTES} bytes)`);
    const group = p.groupOf(tx);
    if (!group) throw privacyError('OFFCHAIN_PRIVACY_GROUP_DOES_NOT_EXIST');
    return group;
  };

  const privateNonce = async (p: NodePrivacy, group: PrivacyGroup, address: Hex): Promise<bigint> => {
    const head = api.head();
    const root = p.states.rootAt(head.hash, group.privacyGroupId);
    if (root === undefined) return 0n;
    return (await p.states.account(root, address)).nonce;
  };

  const findMarker = (p: NodePrivacy, hash: Hex) => {
    const found = api.minedTransaction(hash);
    if (!found) return undefined;
    const work = p.workOf(found.entry).find((w) => w.commitmentHash === hash);
    return work && { work, entry: found.entry };
  };

  const specs: Array<Omit<RpcMethodSpec, 'group'> & { group?: RpcMethodSpec['group'] }> = [
    {
      name: 'priv_getPrivacyPrecompileAddress',
      handler: () => {
        privacy();
        return PRIVACY_PRECOMPILE_ADDRESS;
      },
    },
    {
      name: 'priv_createPrivacyGroup',
      handler: (params) => {
        const p = privacy();
        const x = params[0] as { addresses?: unknown; name?: unknown; description?: unknown } | undefined;
        if (typeof x !== 'object' || x === null || !Array.isArray(x.addresses) || (x.name !== undefined && typeof x.name !== 'string') || (x.description !== undefined && typeof x.description !== 'string'))
          throw rpcError('INVALID_PARAMS', 'Invalid create privacy group params');
        const seed = new Uint8Array(32);
        for (let i = 0; i < 32; i++) seed[i] = api.node.random.int(256);
        try {
          return p.ptm.createGroup(x.addresses as string[], (x.name as string | undefined) ?? '', (x.description as string | undefined) ?? '', seed).privacyGroupId;
        } catch (e) {
          if (e instanceof PtmError) throw new RpcError(-50200, e.enclaveError);
          throw e;
        }
      },
    },
    {
      name: 'priv_deletePrivacyGroup',
      handler: (params) => {
        const p = privacy();
        if (typeof params[0] !== 'string') throw rpcError('INVALID_PARAMS', 'Invalid privacy group params');
        try {
          return p.ptm.deleteGroup(params[0]);
        } catch {
          throw privacyError('DELETE_PRIVACY_GROUP_ERROR');
        }
      },
    },
    {
      name: 'priv_findPrivacyGroup',
      handler: (params) => {
        const p = privacy();
        if (!Array.isArray(params[0])) throw rpcError('INVALID_ADDRESS_PARAMS');
        try {
          return p.ptm.findGroups(params[0] as string[]).map(groupResult);
        } catch {
          throw privacyError('FIND_PRIVACY_GROUP_ERROR');
        }
      },
    },
    {
      name: 'eea_sendRawTransaction',
      group: 'EEA',
      handler: async (params) => {
        const p = privacy();
        const tx = decodeRaw(params[0]);
        const group = prepare(p, tx);
        if (tx.nonce < (await privateNonce(p, group, tx.sender))) throw rpcError('NONCE_TOO_LOW');
        const key = send(p, tx, group);
        const marker = p.markerTransaction(tx, key, (a) => api.node.poolNextNonce(a), api.head().block.header);
        return api.sendRawTransaction(marker.serialize());
      },
    },
    {
      name: 'priv_distributeRawTransaction',
      handler: (params) => {
        const p = privacy();
        const tx = decodeRaw(params[0]);
        const group = prepare(p, tx);
        return bytesToHex(fromBase64(send(p, tx, group))!);
      },
    },
    {
      name: 'priv_getTransactionReceipt',
      handler: async (params) => {
        const p = privacy();
        const hash = parseHash32(params[0], 'INVALID_TRANSACTION_HASH_PARAMS');
        const marker = findMarker(p, hash);
        if (!marker) return null;
        const r = await p.receiptAt(marker.entry, hash);
        return r ? receiptResult(r) : null;
      },
    },
    {
      name: 'priv_getPrivateTransaction',
      handler: (params) => {
        const p = privacy();
        const hash = parseHash32(params[0], 'INVALID_TRANSACTION_HASH_PARAMS');
        const marker = findMarker(p, hash);
        return marker ? privateTransactionResult(marker.work.tx, marker.work.privacyGroupId) : null;
      },
    },
    {
      name: 'priv_getTransactionCount',
      handler: async (params) => {
        const p = privacy();
        if (paramLength(params) !== 2) throw rpcError('INVALID_PARAM_COUNT');
        const address = parseAddress(params[0]);
        const g = typeof params[1] === 'string' ? p.ptm.group(params[1]) : undefined;
        if (!g || !g.members.includes(p.config.publicKey)) throw privacyError('GET_PRIVATE_TRANSACTION_NONCE_ERROR');
        return quantity(await privateNonce(p, g, address));
      },
    },
    {
      name: 'priv_getEeaTransactionCount',
      handler: async (params) => {
        const p = privacy();
        const address = parseAddress(params[0]);
        const from = params[1];
        const to = params[2];
        if (typeof from !== 'string' || !fromBase64(from)) throw rpcError('INVALID_PARAMS', 'Invalid private from params');
        if (!Array.isArray(to) || to.some((k) => typeof k !== 'string' || !fromBase64(k))) throw rpcError('INVALID_PARAMS', 'Invalid private for params');
        const g = p.ptm.legacyGroup(from, to as string[]);
        if (!g.members.includes(p.config.publicKey)) throw privacyError('GET_PRIVATE_TRANSACTION_NONCE_ERROR');
        return quantity(await privateNonce(p, g, address));
      },
    },
    {
      name: 'priv_debugGetStateRoot',
      handler: (params) => {
        const p = privacy();
        const g = knownGroup(p, params[0]);
        const at = groupRootAt(p, g, params[1]);
        if (!at) throw rpcError('INVALID_BLOCK_PARAMS');
        return bytesToHex(at.root);
      },
    },
    {
      name: 'priv_getCode',
      handler: async (params) => {
        const p = privacy();
        const g = knownGroup(p, params[0]);
        const address = parseAddress(params[1]);
        const at = groupRootAt(p, g, params[2]);
        if (!at) return null;
        return dataHex((await p.states.account(at.root, address)).code);
      },
    },
    {
      name: 'priv_call',
      handler: async (params) => {
        const p = privacy();
        const g = knownGroup(p, params[0]);
        const call = parseCallObject(params[1]);
        if (!call.to) throw rpcError('INVALID_CALL_PARAMS');
        const at = groupRootAt(p, g, params[2]);
        if (!at) throw rpcError('INVALID_BLOCK_PARAMS');
        const gas = call.gas ?? at.entry.block.header.gasLimit;
        const res = await p.states.call(at.entry.block.header, at.root, call.from ?? '0x0000000000000000000000000000000000000000', call.to, call.data ?? new Uint8Array(0), gas > api.gasCap ? api.gasCap : gas);
        if (res.error === 'revert') throw new RpcError(-32000, 'Execution reverted', dataHex(res.output));
        if (res.error !== undefined) throw new RpcError(-32000, `Private transaction failed (${res.error})`);
        return dataHex(res.output);
      },
    },
    {
      name: 'priv_getLogs',
      handler: (params) => {
        const p = privacy();
        const g = knownGroup(p, params[0]);
        const f = parseFilterObject(params[1]);
        return logsInRange(p, g, f);
      },
    },
    {
      name: 'priv_newFilter',
      handler: (params) => {
        const p = privacy();
        const g = knownGroup(p, params[0]);
        const f = parseFilterObject(params[1]);
        expireFilters();
        if (filters.size >= PRIVATE_LIMITS.filters) throw new RpcError(-32000, 'Filter limit reached');
        let id = '';
        do {
          id = quantity(BigInt(Math.floor(api.node.random.next() * 2 ** 48)) * 65_536n + BigInt(api.node.random.int(65_536)));
        } while (filters.has(id));
        filters.set(id, { id, privacyGroupId: g.privacyGroupId, filter: f, pending: [], expiresAt: now() + FILTER_EXPIRY_MS });
        return id;
      },
    },
    {
      name: 'priv_getFilterChanges',
      handler: (params) => {
        const p = privacy();
        knownGroup(p, params[0]);
        const f = filterOf(params[0], params[1]);
        const out = f.pending;
        f.pending = [];
        return out;
      },
    },
    {
      name: 'priv_getFilterLogs',
      handler: (params) => {
        const p = privacy();
        const g = knownGroup(p, params[0]);
        return logsInRange(p, g, filterOf(g.privacyGroupId, params[1]).filter);
      },
    },
    {
      name: 'priv_uninstallFilter',
      handler: (params) => {
        const p = privacy();
        knownGroup(p, params[0]);
        const f = typeof params[1] === 'string' ? filters.get(params[1]) : undefined;
        if (!f || f.privacyGroupId !== params[0]) return false;
        filters.delete(f.id);
        return true;
      },
    },
    {
      name: 'priv_subscribe',
      connectionOnly: true,
      handler: (params, ctx) => {
        const p = privacy();
        const g = knownGroup(p, params[0]);
        if (params[1] !== 'logs') throw rpcError('INVALID_SUBSCRIPTION_PARAMS');
        const f = parseFilterObject(params[2] ?? {});
        if (!ctx.notify || ctx.connectionId === undefined) throw rpcError('INVALID_REQUEST');
        const mine = [...subscriptions.values()].filter((s) => s.connectionId === ctx.connectionId).length;
        if (mine >= PRIVATE_LIMITS.subscriptionsPerConnection || subscriptions.size >= PRIVATE_LIMITS.subscriptions) throw new RpcError(-32000, 'Subscription limit reached');
        const id = quantity(nextSubscription++);
        subscriptions.set(id, { id, connectionId: ctx.connectionId, privacyGroupId: g.privacyGroupId, filter: f, notify: ctx.notify });
        return id;
      },
    },
    {
      name: 'priv_unsubscribe',
      connectionOnly: true,
      handler: (params, ctx) => {
        privacy();
        if (typeof params[0] !== 'string') throw rpcError('INVALID_PARAMS', 'Invalid privacy group params');
        if (typeof params[1] !== 'string' || !/^0x[0-9a-fA-F]{1,16}$/.test(params[1])) throw rpcError('INVALID_SUBSCRIPTION_PARAMS');
        const id = quantity(BigInt(params[1]));
        const s = subscriptions.get(id);
        if (!s || s.connectionId !== ctx.connectionId || s.privacyGroupId !== params[0]) throw new RpcError(-32000, 'Subscription not found');
        subscriptions.delete(id);
        return true;
      },
    },
  ];

  /** As eth_getLogs: a range past the head or wider than --rpc-max-logs-range is refused. */
  async function logsInRange(p: NodePrivacy, g: PrivacyGroup, f: FilterObject): Promise<PrivateLogResult[]> {
    const entries = f.blockHash !== undefined ? [api.byHash(f.blockHash)].filter((e) => e !== undefined) : (() => {
      const from = api.entryOf(f.fromBlock)?.number;
      const to = api.entryOf(f.toBlock)?.number;
      if (from === undefined || to === undefined || from > to) throw rpcError('INVALID_PARAMS');
      if (api.maxLogsRange > 0 && to - from > api.maxLogsRange) throw rpcError('EXCEEDS_RPC_MAX_BLOCK_RANGE');
      const out = [];
      for (let n = from; n <= to; n++) {
        const e = api.byNumber(n);
        if (e) out.push(e);
      }
      return out;
    })();
    const logs: PrivateLogResult[] = [];
    for (const e of entries)
      for (const w of p.workOf(e)) {
        if (w.privacyGroupId !== g.privacyGroupId) continue;
        const r = await p.receiptAt(e, w.commitmentHash);
        if (r) for (const log of logsOf(r, false)) if (matches(log, f)) logs.push(log);
      }
    return logs;
  }

  return specs.map((s) => ({ ...s, group: s.group ?? 'PRIV' }));
}
