/**
 * RLPx framing (devp2p rlpx.md "Framing"):
 *   frame  = header-ciphertext (16) || header-mac (16) || frame-ciphertext || frame-mac (16)
 *   header = frame-size (3 bytes, big-endian) || [capability-id, context-id] = [0, 0] || zero padding to 16
 *   frame-ciphertext = aes-256-ctr(frame-data || zero padding to 16)
 * One AES-256-CTR stream per direction, keyed by aes-secret with a zero IV; MACs as in frame-mac.ts.
 * The decoder takes arbitrary TCP chunks, checks each MAC before decrypting, and bounds frame size
 * and buffered bytes.
 */
import { createCipheriv, createDecipheriv, timingSafeEqual, type Cipher, type Decipher } from 'node:crypto';
import { concatBytes } from '../../crypto/bytes.ts';
import { ByteQueue } from './byte-queue.ts';
import { FrameMac, MAC_BYTES } from './frame-mac.ts';
import type { SessionSecrets } from './session-secrets.ts';

const HEADER_BYTES = 16;
const HEADER_WITH_MAC_BYTES = HEADER_BYTES + MAC_BYTES;
/** RLP of the list [0, 0]: the capability-id and context-id every current client sends. */
const HEADER_DATA = Uint8Array.of(0xc2, 0x80, 0x80);
/** frame-size is a 24-bit field. */
export const MAX_FRAME_SIZE_FIELD = 0xffffff;
/** Default cap on one frame's data: 16 MiB, as the spec caps a message. */
export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;
/** A large chunk is fed in pieces of this size, so buffering stays one frame plus one piece. */
const FEED_BYTES = 64 * 1024;

export class FramingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FramingError';
  }
}

/** A header declared a frame over the decoder's limit; nothing of its body was buffered. */
export class FrameTooLargeError extends FramingError {
  constructor(
    readonly frameBytes: number,
    readonly limitBytes: number,
  ) {
    super(`frame of ${frameBytes} bytes exceeds the limit of ${limitBytes}`);
    this.name = 'FrameTooLargeError';
  }
}

function padded16(n: number): number {
  return (n + 15) & ~15;
}

function zeroIv(): Uint8Array {
  return new Uint8Array(16);
}

export class FrameEncoder {
  private readonly aes: Cipher;
  private readonly mac: FrameMac;

  constructor(secrets: Pick<SessionSecrets, 'aesSecret' | 'macSecret' | 'egressMac'>) {
    this.aes = createCipheriv('aes-256-ctr', secrets.aesSecret, zeroIv());
    this.mac = new FrameMac(secrets.egressMac, secrets.macSecret);
  }

  /** Frames, encrypts and authenticates one frame-data (message id || message data). */
  encode(frameData: Uint8Array): Uint8Array {
    if (frameData.length === 0) throw new FramingError('frame data is empty');
    const header = this.encodeHeader(frameData.length);
    const body = new Uint8Array(padded16(frameData.length));
    body.set(frameData);
    const bodyCiphertext = new Uint8Array(this.aes.update(body));
    const frameMac = this.mac.updateFrame(bodyCiphertext);
    return concatBytes(header, bodyCiphertext, frameMac);
  }

  /** header-ciphertext || header-mac for a frame of `frameSize` bytes; its body must follow. */
  encodeHeader(frameSize: number): Uint8Array {
    if (frameSize > MAX_FRAME_SIZE_FIELD) throw new FramingError(`frame of ${frameSize} bytes exceeds the 24-bit size field`);
    const header = new Uint8Array(HEADER_BYTES);
    header[0] = frameSize >>> 16;
    header[1] = (frameSize >>> 8) & 0xff;
    header[2] = frameSize & 0xff;
    header.set(HEADER_DATA, 3);
    const headerCiphertext = new Uint8Array(this.aes.update(header));
    return concatBytes(headerCiphertext, this.mac.updateHeader(headerCiphertext));
  }
}

export interface FrameDecoderOptions {
  /** Largest accepted frame-size (default 16 MiB); larger headers are rejected before any body is buffered. */
  maxFrameBytes?: number;
}

/** What the decoder may hold: one whole frame of the largest size plus one fed piece. */
function bufferLimitBytes(maxFrameBytes: number): number {
  return HEADER_WITH_MAC_BYTES + padded16(maxFrameBytes) + MAC_BYTES + FEED_BYTES;
}

export class FrameDecoder {
  private readonly aes: Decipher;
  private readonly mac: FrameMac;
  private readonly queue: ByteQueue;
  private maxFrameBytes: number;
  /** frame-size of the header already read, while its body is awaited. */
  private pendingFrameSize: number | undefined;
  private failed = false;

  constructor(secrets: Pick<SessionSecrets, 'aesSecret' | 'macSecret' | 'ingressMac'>, options: FrameDecoderOptions = {}) {
    this.maxFrameBytes = Math.min(options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES, MAX_FRAME_SIZE_FIELD);
    this.aes = createDecipheriv('aes-256-ctr', secrets.aesSecret, zeroIv());
    this.mac = new FrameMac(secrets.ingressMac, secrets.macSecret);
    // decode() feeds at most FEED_BYTES past what the current frame needs, so this never overflows.
    this.queue = new ByteQueue(bufferLimitBytes(this.maxFrameBytes));
  }

  /**
   * Sets the largest frame-size accepted from the next header on. Frames are handed out one at a
   * time by decode(), so a limit changed while handling one frame applies to the very next.
   */
  setMaxFrameBytes(maxFrameBytes: number): void {
    this.maxFrameBytes = Math.min(maxFrameBytes, MAX_FRAME_SIZE_FIELD);
    this.queue.setMaxBytes(Math.max(bufferLimitBytes(this.maxFrameBytes), this.queue.length));
  }

  /** Consumes received bytes and returns the frame-data of every frame they complete (possibly none). */
  push(chunk: Uint8Array): Uint8Array[] {
    return [...this.decode(chunk)];
  }

  /**
   * Consumes received bytes, yielding the frame-data of each frame they complete as soon as it is
   * complete; the next header is read only when the next frame is asked for.
   * Throws FramingError on a bad MAC, an oversize (FrameTooLargeError) or empty frame, or too much
   * buffered data; the decoder is then unusable, as its cipher and MAC states no longer line up
   * with the peer's.
   */
  *decode(chunk: Uint8Array): Generator<Uint8Array, void, undefined> {
    if (this.failed) throw new FramingError('frame decoder already failed');
    try {
      for (let offset = 0; offset < chunk.length; offset += FEED_BYTES) {
        this.queue.push(chunk.subarray(offset, offset + FEED_BYTES));
        for (let frame = this.nextFrame(); frame !== undefined; frame = this.nextFrame()) yield frame;
      }
    } catch (e) {
      this.failed = true;
      if (e instanceof FramingError) throw e;
      throw new FramingError((e as Error).message);
    }
  }

  /** Bytes received but not yet part of a complete frame. */
  get bufferedBytes(): number {
    return this.queue.length;
  }

  private nextFrame(): Uint8Array | undefined {
    if (this.pendingFrameSize === undefined) {
      if (this.queue.length < HEADER_WITH_MAC_BYTES) return undefined;
      this.pendingFrameSize = this.readHeader(this.queue.take(HEADER_WITH_MAC_BYTES));
    }
    const frameSize = this.pendingFrameSize;
    const bodyBytes = padded16(frameSize) + MAC_BYTES;
    if (this.queue.length < bodyBytes) return undefined;
    this.pendingFrameSize = undefined;
    return this.readBody(this.queue.take(bodyBytes), frameSize);
  }

  private readHeader(bytes: Uint8Array): number {
    const headerCiphertext = bytes.subarray(0, HEADER_BYTES);
    const expected = this.mac.updateHeader(headerCiphertext);
    if (!timingSafeEqual(expected, bytes.subarray(HEADER_BYTES))) throw new FramingError('header MAC mismatch');
    const header = this.aes.update(headerCiphertext);
    // header-data ([capability-id, context-id]) is unused by every current client and ignored here.
    const frameSize = (header[0] << 16) | (header[1] << 8) | header[2];
    if (frameSize === 0) throw new FramingError('frame with size 0 has no message id');
    if (frameSize > this.maxFrameBytes) throw new FrameTooLargeError(frameSize, this.maxFrameBytes);
    return frameSize;
  }

  private readBody(bytes: Uint8Array, frameSize: number): Uint8Array {
    const ciphertext = bytes.subarray(0, bytes.length - MAC_BYTES);
    const expected = this.mac.updateFrame(ciphertext);
    if (!timingSafeEqual(expected, bytes.subarray(bytes.length - MAC_BYTES))) throw new FramingError('frame MAC mismatch');
    return new Uint8Array(this.aes.update(ciphertext)).subarray(0, frameSize);
  }
}
