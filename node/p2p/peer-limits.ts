/**
 * How many of --max-peers may be connections the peer dialled (inbound), as Besu computes it.
 *
 * Besu (BesuCommand.ensureValidPeerBoundParams): with --remote-connections-limit-enabled (default
 * true) the limit is Math.round(fraction * maxPeers), where fraction = percentage / 100 is a Java
 * float (util/number/Fraction.fromPercentage) and --remote-connections-max-percentage is an
 * integer 0..100 (util/number/Percentage), default 60 (RlpxConfiguration
 * .DEFAULT_FRACTION_REMOTE_CONNECTIONS_ALLOWED = 0.6f). Without the limit it is maxPeers. The limit
 * only acts when it is below maxPeers (EthPeers.shouldLimitRemoteConnections).
 */

export const DEFAULT_REMOTE_CONNECTIONS_MAX_PERCENTAGE = 60;

export interface RemoteConnectionsLimit {
  /** --remote-connections-limit-enabled */
  enabled: boolean;
  /** --remote-connections-max-percentage, an integer 0..100. */
  maxPercentage: number;
}

export class PeerLimitError extends Error {}

/** Besu's maxRemotelyInitiatedPeers for these options. Throws PeerLimitError where Besu refuses to start. */
export function maxRemotelyInitiatedPeers(maxPeers: number, limit: RemoteConnectionsLimit): number {
  if (!limit.enabled) return maxPeers;
  const { maxPercentage } = limit;
  if (!Number.isInteger(maxPercentage) || maxPercentage < 0 || maxPercentage > 100)
    throw new PeerLimitError(`'${maxPercentage}' should be a number between 0 and 100 inclusive`);
  // Fraction.fromFloat accepts only 0 < fraction <= 1, so Besu fails at start-up on 0 with the limit enabled.
  if (maxPercentage === 0) throw new PeerLimitError('0 is not allowed while --remote-connections-limit-enabled is true');
  return javaRound(javaFloat(javaFloat(maxPercentage / 100) * maxPeers));
}

/** `x` rounded to a Java float, as Java rounds each float quotient and product. */
function javaFloat(x: number): number {
  return Math.fround(x);
}

/** Java's Math.round(float): floor(x + 1/2). */
function javaRound(x: number): number {
  return Math.floor(x + 0.5);
}
