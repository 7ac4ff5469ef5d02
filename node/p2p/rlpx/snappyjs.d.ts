// snappyjs 0.7.0 ships no types. Raw (unframed) Snappy block format.
declare module 'snappyjs' {
  export function compress(data: Uint8Array): Uint8Array;
  /** Throws when the stream's declared length exceeds `maxLength` (checked before allocating). */
  export function uncompress(data: Uint8Array, maxLength?: number): Uint8Array;
}
