/**
 * devp2p Disconnect reason codes (devp2p rlpx.md "Disconnect (0x01)"), keyed by Besu's
 * DisconnectReason names. 0x0c-0x0f are unassigned.
 */
export const DisconnectReason = {
  REQUESTED: 0x00,
  TCP_SUBSYSTEM_ERROR: 0x01,
  BREACH_OF_PROTOCOL: 0x02,
  USELESS_PEER: 0x03,
  TOO_MANY_PEERS: 0x04,
  ALREADY_CONNECTED: 0x05,
  INCOMPATIBLE_P2P_PROTOCOL_VERSION: 0x06,
  NULL_NODE_ID: 0x07,
  CLIENT_QUITTING: 0x08,
  UNEXPECTED_ID: 0x09,
  LOCAL_IDENTITY: 0x0a,
  TIMEOUT: 0x0b,
  SUBPROTOCOL_TRIGGERED: 0x10,
} as const;
export type DisconnectReasonCode = number;

const DESCRIPTIONS: Record<number, string> = {
  0x00: 'disconnect requested',
  0x01: 'TCP sub-system error',
  0x02: 'breach of protocol',
  0x03: 'useless peer',
  0x04: 'too many peers',
  0x05: 'already connected',
  0x06: 'incompatible P2P protocol version',
  0x07: 'null node identity received',
  0x08: 'client quitting',
  0x09: 'unexpected identity in handshake',
  0x0a: 'identity is the same as this node',
  0x0b: 'ping timeout',
  0x10: 'subprotocol-specific reason',
};

/** A readable name for any reason byte, e.g. "breach of protocol (0x02)"; unknown codes say so. */
export function describeDisconnectReason(code: DisconnectReasonCode | undefined): string {
  if (code === undefined) return 'no reason given';
  const hex = `0x${code.toString(16).padStart(2, '0')}`;
  return `${DESCRIPTIONS[code] ?? 'unknown reason'} (${hex})`;
}

export function isKnownDisconnectReason(code: number): boolean {
  return DESCRIPTIONS[code] !== undefined;
}
