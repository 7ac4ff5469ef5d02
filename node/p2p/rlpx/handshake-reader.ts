/**
 * Cuts one handshake packet (auth or ack) off the front of the received bytes and decrypts it,
 * telling the legacy fixed-size format from EIP-8 the way EIP-8 suggests: a buffer that starts
 * with 0x04 and decrypts as a legacy packet is legacy, anything else is size-prefixed EIP-8.
 */
import { ByteQueue } from './byte-queue.ts';
import { ECIES_OVERHEAD_BYTES, eciesDecrypt, EciesError } from './ecies.ts';
import { HandshakeError, LEGACY_ACK_PACKET_BYTES, LEGACY_AUTH_PACKET_BYTES, type HandshakeFormat } from './handshake-messages.ts';

export type HandshakePacketKind = 'auth' | 'ack';

export interface ReceivedHandshakePacket {
  /** The bytes as received (size prefix included), for the MAC initial state. */
  packet: Uint8Array;
  /** The decrypted body (RLP list and padding, or the legacy fixed layout). */
  body: Uint8Array;
  format: HandshakeFormat;
}

/** The largest handshake packet: the 16-bit EIP-8 size prefix bounds it. */
export const MAX_HANDSHAKE_PACKET_BYTES = 2 + 0xffff;

/** Returns undefined while more bytes are needed; throws HandshakeError for a packet that cannot be read. */
export function takeHandshakePacket(queue: ByteQueue, kind: HandshakePacketKind, localPrivateKey: Uint8Array): ReceivedHandshakePacket | undefined {
  if (queue.length < 2) return undefined;
  const legacyBytes = kind === 'auth' ? LEGACY_AUTH_PACKET_BYTES : LEGACY_ACK_PACKET_BYTES;
  if (queue.peek(1)[0] === 0x04) {
    // An EIP-8 packet starting with 0x04 would be at least 1024 bytes, longer than a legacy one.
    if (queue.length < legacyBytes) return undefined;
    try {
      const body = eciesDecrypt(localPrivateKey, queue.peek(legacyBytes));
      return { packet: queue.take(legacyBytes), body, format: 'legacy' };
    } catch (e) {
      if (!(e instanceof EciesError)) throw e;
    }
  }
  const prefix = queue.peek(2);
  const size = (prefix[0] << 8) | prefix[1];
  if (size <= ECIES_OVERHEAD_BYTES) throw new HandshakeError(`${kind}: EIP-8 size prefix ${size} is too small for an ECIES message`);
  if (queue.length < 2 + size) return undefined;
  const packet = queue.take(2 + size);
  try {
    return { packet, body: eciesDecrypt(localPrivateKey, packet.subarray(2), packet.subarray(0, 2)), format: 'eip8' };
  } catch (e) {
    throw new HandshakeError(`${kind}: cannot decrypt (${(e as Error).message})`);
  }
}
