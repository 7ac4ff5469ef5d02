/**
 * A FIFO of received TCP chunks that hands out exact byte counts without re-concatenating the
 * whole backlog on every chunk (a 16 MiB frame arriving in 64 KiB chunks would otherwise be
 * copied hundreds of times). The owner bounds what it pushes; `maxBytes` is a hard stop.
 */
export class ByteQueue {
  private chunks: Uint8Array[] = [];
  private headOffset = 0;
  private total = 0;

  constructor(private maxBytes: number) {}

  get length(): number {
    return this.total;
  }

  /** Changes the hard stop for later pushes (bytes already queued stay). */
  setMaxBytes(maxBytes: number): void {
    this.maxBytes = maxBytes;
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    if (this.total + chunk.length > this.maxBytes)
      throw new RangeError(`receive buffer limit of ${this.maxBytes} bytes exceeded`);
    this.chunks.push(chunk);
    this.total += chunk.length;
  }

  /** The first `n` bytes without consuming them (a copy when they span chunks). */
  peek(n: number): Uint8Array {
    if (n > this.total) throw new RangeError(`peek of ${n} bytes with only ${this.total} buffered`);
    const first = this.chunks[0];
    if (first !== undefined && first.length - this.headOffset >= n) return first.subarray(this.headOffset, this.headOffset + n);
    const out = new Uint8Array(n);
    let filled = 0;
    let offset = this.headOffset;
    for (const c of this.chunks) {
      const part = c.subarray(offset, offset + (n - filled));
      out.set(part, filled);
      filled += part.length;
      offset = 0;
      if (filled === n) break;
    }
    return out;
  }

  /** Removes and returns the first `n` bytes. */
  take(n: number): Uint8Array {
    const out = this.peek(n);
    let left = n;
    while (left > 0) {
      const c = this.chunks[0];
      const avail = c.length - this.headOffset;
      if (avail > left) {
        this.headOffset += left;
        left = 0;
      } else {
        left -= avail;
        this.chunks.shift();
        this.headOffset = 0;
      }
    }
    this.total -= n;
    // A view into a caller's chunk could be changed under us by the caller; frames are small
    // enough that one copy is cheap next to AES and keccak over the same bytes.
    return out.slice();
  }

  /** Everything buffered, consumed. */
  takeAll(): Uint8Array {
    return this.take(this.total);
  }
}
