/**
 * devp2p capability negotiation and message-id multiplexing (devp2p rlpx.md "Message ID-based
 * Multiplexing"): ids 0x00-0x0f belong to the p2p base protocol; each shared capability (same
 * name and version on both sides, the highest such version per name) gets a compact range of
 * its message space from 0x10 on, in alphabetical (case-sensitive) order of names.
 */
export interface Capability {
  name: string;
  version: number;
}

export interface LocalCapability extends Capability {
  /** How many message ids the capability uses (its message space). */
  messageCount: number;
}

export interface SharedCapability extends LocalCapability {
  /** The wire message id of the capability's code 0. */
  offset: number;
}

export const BASE_PROTOCOL_MESSAGE_SPACE = 0x10;

/** eth/68: codes 0x00-0x10. */
export const ETH_68 = { name: 'eth', version: 68, messageCount: 17 } as const satisfies LocalCapability;
/** Besu's istanbul/100, which carries QBFT: its messages are codes 0x12-0x15 within it. */
export const ISTANBUL_100 = { name: 'istanbul', version: 100, messageCount: 22 } as const satisfies LocalCapability;

/** qbft-lab's private transaction managers' messages (node/privacy/ptm-wire.ts): codes 0x00-0x04. */
export const PTM_2 = { name: 'ptm', version: 2, messageCount: 5 } as const satisfies LocalCapability;

export function negotiateCapabilities(local: readonly LocalCapability[], remote: readonly Capability[]): SharedCapability[] {
  const best = new Map<string, LocalCapability>();
  for (const mine of local) {
    if (!remote.some((theirs) => theirs.name === mine.name && theirs.version === mine.version)) continue;
    const current = best.get(mine.name);
    if (current === undefined || mine.version > current.version) best.set(mine.name, mine);
  }
  const names = [...best.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let offset = BASE_PROTOCOL_MESSAGE_SPACE;
  return names.map((name) => {
    const cap = best.get(name)!;
    const shared = { ...cap, offset };
    offset += cap.messageCount;
    return shared;
  });
}

/** The capability and capability-relative code of a wire message id >= 0x10, if any owns it. */
export function capabilityOfMessageId(shared: readonly SharedCapability[], messageId: number): { capability: SharedCapability; code: number } | undefined {
  for (const capability of shared) {
    if (messageId >= capability.offset && messageId < capability.offset + capability.messageCount)
      return { capability, code: messageId - capability.offset };
  }
  return undefined;
}

export function validateLocalCapabilities(local: readonly LocalCapability[]): void {
  if (local.length === 0) throw new Error('at least one capability is needed');
  const seen = new Set<string>();
  for (const c of local) {
    if (!/^[\x21-\x7e]{1,8}$/.test(c.name)) throw new Error(`capability name ${JSON.stringify(c.name)} is not 1-8 printable ASCII characters`);
    if (!Number.isSafeInteger(c.version) || c.version < 0) throw new Error(`capability ${c.name}: bad version ${c.version}`);
    if (!Number.isSafeInteger(c.messageCount) || c.messageCount < 1) throw new Error(`capability ${c.name}: bad message count ${c.messageCount}`);
    const key = `${c.name}/${c.version}`;
    if (seen.has(key)) throw new Error(`capability ${key} listed twice`);
    seen.add(key);
  }
}
