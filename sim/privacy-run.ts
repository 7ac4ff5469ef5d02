/**
 * Privacy in a scenario run: privacy nodes get a key pair each (derived from their names) and sign
 * their privacy markers with one of Besu's funded test accounts; groups are created over JSON-RPC
 * at the start, every member subscribes to its group's logs (priv_subscribe) and counts what
 * arrives; private-tx steps send eea_sendRawTransaction; the privacy expectations judge the counts
 * and the nodes' private states.
 */
import { RLP } from '@ethereumjs/rlp';
import { concatBytes, bytesToHex, uint256ToBytes, type Hex } from '../node/crypto/bytes.ts';
import { keccak256 } from '../node/crypto/keccak.ts';
import { privateKeyToAddress } from '../node/crypto/secp256k1.ts';
import { signPrivateTransaction } from '../node/privacy/private-transaction.ts';
import { x25519 } from '@noble/curves/ed25519.js';
import type { PrivacyConfig } from '../node/node.ts';
import type { InProcessNotification } from '../node/rpc/transports/in-process.ts';
import { BESU_TEST_ACCOUNTS } from './keys.ts';
import { rpcClientFor } from './node-rpc-client.ts';
import type { Scenario, Step } from './scenario.ts';
import type { World, WorldNodeSpec } from './world.ts';

const utf8 = new TextEncoder();

/** keccak256("Stored(uint256)"): the topic of the storage contract's one event. */
export const STORED_TOPIC = keccak256(utf8.encode('Stored(uint256)'));

/** The lab's storage contract: calldata x stores x and logs Stored(x); empty calldata returns it. */
export function storageContractInitCode(): Uint8Array {
  const runtime = concatBytes(
    Uint8Array.from([0x36, 0x15, 0x60, 0x36, 0x57, 0x60, 0x00, 0x35, 0x80, 0x60, 0x00, 0x55, 0x60, 0x00, 0x52, 0x7f]),
    STORED_TOPIC,
    Uint8Array.from([0x60, 0x20, 0x60, 0x00, 0xa1, 0x00, 0x5b, 0x60, 0x00, 0x54, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3]),
  );
  return concatBytes(Uint8Array.from([0x60, runtime.length, 0x60, 12, 0x60, 0, 0x39, 0x60, runtime.length, 0x60, 0, 0xf3]), runtime);
}

/** A node's X25519 privacy private key, from its name (the simulator's keys are public: test use only). */
export function privacyPrivateKeyOf(node: string): Uint8Array {
  return keccak256(utf8.encode(`qbft-lab privacy key of ${node}`));
}

/** A node's privacy public key, base64. */
export function privacyKeyOf(node: string): string {
  return Buffer.from(x25519.getPublicKey(privacyPrivateKeyOf(node))).toString('base64');
}

/** The key a node's private-tx steps sign with (any key: private states hold no balances). */
function privateSenderKey(node: string): Uint8Array {
  return keccak256(utf8.encode(`qbft-lab private sender of ${node}`));
}

/** Turns privacy on for the scenario's privacy nodes (marker keys: Besu's test accounts, in turn). */
export function applyPrivacy(s: Scenario, nodes: WorldNodeSpec[]): void {
  if (!s.privacy) return;
  s.privacy.nodes.forEach((name, i) => {
    const spec = nodes.find((n) => n.name === name);
    if (!spec) throw new Error(`privacy: no node named ${name}`);
    const config: PrivacyConfig = { publicKey: privacyKeyOf(name), privateKey: privacyPrivateKeyOf(name), markerSigningKey: BESU_TEST_ACCOUNTS[i % BESU_TEST_ACCOUNTS.length]!.privateKey };
    spec.privacy = config;
  });
}

interface LogCount {
  added: number;
  removed: number;
}

export class PrivacyRun {
  private readonly groupIds: Array<string | undefined> = [];
  /** The contract the group's first deploy step created. */
  private readonly contracts = new Map<number, Hex>();
  private readonly logs = new Map<string, LogCount>();

  constructor(
    private readonly world: World,
    private readonly s: Scenario,
  ) {}

  /** Creates the groups at the start and schedules the members' subscriptions. */
  schedule(): void {
    const groups = this.s.privacy?.groups ?? [];
    this.world.at(0, 'privacy-groups', async () => {
      for (const [i, members] of groups.entries()) {
        const id = await this.request(members[0]!, 'priv_createPrivacyGroup', [{ addresses: members.map(privacyKeyOf), name: `group ${i}`, description: members.join(',') }]);
        this.groupIds[i] = typeof id === 'string' ? id : undefined;
      }
    });
    this.world.at(500, 'privacy-subscriptions', async () => {
      for (const [i, members] of groups.entries())
        for (const member of members) {
          const node = this.world.get(member).node;
          if (!node || this.groupIds[i] === undefined) continue;
          const client = this.client(member);
          const subscription = await this.request(member, 'priv_subscribe', [this.groupIds[i], 'logs', {}]);
          if (typeof subscription !== 'string') continue;
          client.onNotification((n: InProcessNotification) => {
            if (n.subscription !== subscription || n.privacyGroupId !== this.groupIds[i]) return;
            const count = this.logs.get(member) ?? { added: 0, removed: 0 };
            if ((n.result as { removed?: boolean }).removed) count.removed++;
            else count.added++;
            this.logs.set(member, count);
          });
        }
    });
  }

  async step(st: Extract<Step, { do: 'private-tx' }>): Promise<void> {
    const groupId = this.groupIds[st.group];
    if (groupId === undefined) {
      this.world.fail(`private-tx on ${st.node}: privacy group ${st.group} was not created`);
      return;
    }
    const key = privateSenderKey(st.node);
    const sender = privateKeyToAddress(key);
    const nonce = BigInt((await this.request(st.node, 'priv_getTransactionCount', [sender, groupId])) as string);
    const contract = this.contracts.get(st.group);
    if (st.action === 'store' && contract === undefined) {
      this.world.fail(`private-tx on ${st.node}: privacy group ${st.group} has no contract deployed yet`);
      return;
    }
    if (st.action === 'deploy' && contract === undefined) this.contracts.set(st.group, bytesToHex(keccak256(RLP.encode([Buffer.from(sender.slice(2), 'hex'), nonce])).subarray(12)));
    const tx = signPrivateTransaction(
      {
        nonce,
        gasPrice: 10n ** 9n,
        gasLimit: 300_000n,
        to: st.action === 'deploy' ? undefined : contract,
        value: 0n,
        data: st.action === 'deploy' ? storageContractInitCode() : uint256ToBytes(BigInt(st.value ?? 1)),
        privateFrom: Buffer.from(privacyKeyOf(st.node), 'base64'),
        privacyGroupId: Buffer.from(groupId, 'base64'),
        restriction: 'restricted',
        chainId: this.world.get(st.node).genesis.chainId,
      },
      key,
    );
    await this.request(st.node, 'eea_sendRawTransaction', [bytesToHex(tx.encoded)]);
  }

  logsOf(node: string): LogCount {
    return this.logs.get(node) ?? { added: 0, removed: 0 };
  }

  /** A non-member: no private receipt, and every group's state empty at its head. */
  untouched(node: string): boolean {
    const n = this.world.get(node).node;
    const privacy = n?.privacy();
    if (!n || !privacy) return false;
    if (this.logsOf(node).added + this.logsOf(node).removed > 0) return false;
    const head = n.head();
    for (const id of this.groupIds) {
      if (id === undefined) continue;
      const root = privacy.states.rootAt(head.hash, id);
      if (root && bytesToHex(root) !== '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421') return false;
    }
    for (let number = 0; number <= head.number; number++) {
      const entry = n.blockAt(number);
      if (entry && privacy.workOf(entry).length > 0) return false;
    }
    return true;
  }

  private client(node: string) {
    return rpcClientFor(this.world.get(node).node!, (e) => this.world.trace.record(this.world.kernel.nowMs(), node, e));
  }

  private async request(node: string, method: string, params: unknown[]): Promise<unknown> {
    if (!this.world.get(node).node) {
      this.world.fail(`${method}: ${node} is not running`);
      return undefined;
    }
    try {
      return await this.client(node).request(method, params);
    } catch (err) {
      this.world.fail(`${method} on ${node}: ${(err as Error).message}`);
      return undefined;
    }
  }
}
