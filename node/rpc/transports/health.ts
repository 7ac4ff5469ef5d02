/**
 * Besu's liveness and readiness checks (besu: ethereum/api/.../jsonrpc/health/{HealthService,
 * LivenessCheck,ReadinessCheck}.java), as pure functions.
 *
 * - Liveness: always healthy.
 * - Readiness: when P2P is enabled, `peerCount >= minPeers` (query parameter `minPeers`, default
 *   1, parsed as Java's Integer.parseInt); then, when a sync is in progress,
 *   `highest - current <= maxBlocksBehind` (query parameter `maxBlocksBehind`, default 2, parsed as
 *   Long.parseLong). A parameter that does not parse makes the node not ready, but only when its
 *   check runs (minPeers is ignored with P2P disabled, maxBlocksBehind when not syncing).
 * - Body: Vert.x `new JsonObject({"status": ...}).encodePrettily()`, i.e. `{\n  "status" : "UP"\n}`;
 *   HTTP 200 when healthy, 503 when not.
 */

export const LIVENESS_PATH = '/liveness';
export const READINESS_PATH = '/readiness';
export const DEFAULT_MINIMUM_PEERS = 1;
export const DEFAULT_MAX_BLOCKS_BEHIND = 2;

export interface SyncProgress {
  current: number | bigint;
  highest: number | bigint;
}

export interface ReadinessInputs {
  peerCount: number;
  p2pEnabled: boolean;
  /** The synchronizer's status: undefined when no sync is in progress. */
  syncing: SyncProgress | undefined;
  /** Raw query parameter values (undefined or null when absent). */
  minPeers?: string | null | undefined;
  maxBlocksBehind?: string | null | undefined;
}

export function liveness(): boolean {
  return true;
}

export function readiness(inputs: ReadinessInputs): boolean {
  if (inputs.p2pEnabled) {
    let minimumPeers = BigInt(DEFAULT_MINIMUM_PEERS);
    if (inputs.minPeers !== undefined && inputs.minPeers !== null) {
      const parsed = parseJavaInteger(inputs.minPeers, 32);
      if (parsed === undefined) return false;
      minimumPeers = parsed;
    }
    if (BigInt(inputs.peerCount) < minimumPeers) return false;
  }
  if (inputs.syncing === undefined) return true;
  let maxBehind = BigInt(DEFAULT_MAX_BLOCKS_BEHIND);
  if (inputs.maxBlocksBehind !== undefined && inputs.maxBlocksBehind !== null) {
    const parsed = parseJavaInteger(inputs.maxBlocksBehind, 64);
    if (parsed === undefined) return false;
    maxBehind = parsed;
  }
  return BigInt(inputs.syncing.highest) - BigInt(inputs.syncing.current) <= maxBehind;
}

/** `{\n  "status" : "UP"\n}` or the same with DOWN (Jackson's default pretty printer). */
export function healthBody(healthy: boolean): string {
  return `{\n  "status" : "${healthy ? 'UP' : 'DOWN'}"\n}`;
}

export function healthStatus(healthy: boolean): 200 | 503 {
  return healthy ? 200 : 503;
}

/**
 * Java's Integer.parseInt (bits 32) / Long.parseLong (bits 64) in radix 10: an optional '+' or '-'
 * then one or more decimal digits, where a digit is any BMP character of Unicode category Nd (as
 * Character.digit accepts), within range. Anything else: undefined (Java's NumberFormatException).
 */
export function parseJavaInteger(s: string, bits: 32 | 64): bigint | undefined {
  if (typeof s !== 'string' || s.length === 0) return undefined;
  let i = 0;
  let negative = false;
  const first = s.charCodeAt(0);
  if (first === 0x2d || first === 0x2b) {
    negative = first === 0x2d;
    i = 1;
    if (s.length === 1) return undefined;
  }
  let value = 0n;
  for (; i < s.length; i++) {
    const d = decimalDigitValue(s.charCodeAt(i));
    if (d < 0) return undefined;
    value = value * 10n + BigInt(d);
  }
  if (negative) value = -value;
  const limit = 1n << BigInt(bits - 1);
  if (value < -limit || value >= limit) return undefined;
  return value;
}

const ND = /^\p{Nd}$/u;

/** The value of a BMP decimal digit (Unicode Nd), or -1. Nd characters come in runs of ten, 0..9. */
function decimalDigitValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code < 0x80 || (code >= 0xd800 && code <= 0xdfff)) return -1;
  if (!ND.test(String.fromCharCode(code))) return -1;
  let start = code;
  while (start > 0 && ND.test(String.fromCharCode(start - 1))) start--;
  return (code - start) % 10;
}
