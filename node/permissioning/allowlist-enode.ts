/**
 * enode URLs as Besu's node allowlist reads them (besu EnodeURLImpl.fromString with DNS disabled,
 * Besu's default; snapshot 3fd224e2):
 * - enode://<node id>@<ip>:<listening port>[?discport=<discovery port>]; the scheme is compared
 *   without case, the node id is exactly 128 hex digits (no curve check), the host must be an IP
 *   literal (IPv6 in brackets; host names are refused while --Xdns-enabled is off, which qbft-lab
 *   does not have), the port is required; a path or fragment after the port is ignored.
 * - Port 0 means "not listening" and discport=0 "no discovery"; without a query the discovery port
 *   is the listening port.
 * - Two entries are equal when node id, IP, listening and discovery ports are; the canonical text
 *   (what perm_getNodesAllowlist answers and what is written back to the file) is lower-case id,
 *   canonical IP, the listening port or 0, and ?discport= only when it differs.
 * - A peer is permitted by an entry with the same IP and listening port, whatever its node id
 *   (EnodeURLImpl.sameListeningEndpoint, NodeLocalConfigPermissioningController.isPermitted).
 */
import { normalizeIp } from '../p2p/discovery/ip-address.ts';

export interface AllowlistEnode {
  /** 128 lower-case hex digits. */
  nodeId: string;
  /** Canonical IP: dotted IPv4, or RFC 5952 IPv6 without brackets (IPv4-mapped IPv6 is IPv4). */
  ip: string;
  /** undefined: not listening (port 0). */
  listeningPort?: number;
  /** undefined: no discovery (discport=0). */
  discoveryPort?: number;
}

const FORMAT_HINT = "Enode URL should have the following format 'enode://<node_id>@<ip>:<listening_port>[?discport=<discovery_port>]'.";

/** A value that is not an enode URL Besu accepts; the message is Besu's. */
export class InvalidEnodeError extends Error {
  constructor(value: string, detail: string) {
    const shown = value.length > 300 ? `${value.slice(0, 300)}...` : value;
    super(`Invalid enode URL syntax '${shown}'. ${FORMAT_HINT} ${detail}`);
    this.name = 'InvalidEnodeError';
  }
}

// scheme :// userinfo @ host [: port] [path] [? query] [# fragment]
const URL_SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^@/?#]*)@(\[[^\]/?#]*\]|[^:/?#[\]@]*)(?::([0-9]*))?(\/[^?#]*)?(?:\?([^#]*))?(?:#.*)?$/;
const NODE_ID = /^[0-9a-fA-F]{128}$/;
const DISCPORT = /^discport=([0-9]{1,5})$/;

function checkPort(port: number, what: 'listening' | 'discovery', value: string): number | undefined {
  if (port === 0) return undefined;
  if (!(port > 0 && port < 65536)) throw new InvalidEnodeError(value, `${what} port requires a value between 1 and 65535. Got ${port}.`);
  return port;
}

export function parseAllowlistEnode(value: string): AllowlistEnode {
  if (value.trim() === '') throw new InvalidEnodeError(value, 'Invalid empty value.');
  const m = URL_SHAPE.exec(value);
  if (!m) throw new InvalidEnodeError(value, 'Missing or invalid host or ip address.');
  const [, scheme, userInfo, host, portText, , query] = m;
  if (host === '' || (portText !== undefined && portText.length > 10)) throw new InvalidEnodeError(value, 'Missing or invalid host or ip address.');
  if (userInfo === '') throw new InvalidEnodeError(value, 'Missing node ID.');
  if (scheme.toLowerCase() !== 'enode') throw new InvalidEnodeError(value, 'Invalid URI scheme (must equal "enode").');
  if (!NODE_ID.test(userInfo))
    throw new InvalidEnodeError(value, "Invalid node ID: node ID must have exactly 128 hexadecimal characters and should not include any '0x' hex prefix.");
  const tcpPort = portText === undefined || portText === '' ? -1 : Number(portText);
  let discovery: number | undefined = tcpPort;
  if (query !== undefined) {
    const d = DISCPORT.exec(query);
    if (!d) throw new InvalidEnodeError(value, `Invalid discovery port: '${query}'.`);
    discovery = Number(d[1]);
  }
  const ip = host.startsWith('[') ? canonicalIpv6Literal(host.slice(1, -1)) : canonicalIpv4(host);
  if (ip === undefined) throw new InvalidEnodeError(value, 'Invalid ip address.');
  const enode: AllowlistEnode = { nodeId: userInfo.toLowerCase(), ip };
  const listeningPort = checkPort(tcpPort, 'listening', value);
  const discoveryPort = checkPort(discovery, 'discovery', value);
  if (listeningPort !== undefined) enode.listeningPort = listeningPort;
  if (discoveryPort !== undefined) enode.discoveryPort = discoveryPort;
  return enode;
}

/** Besu's EnodeURLImpl.toString. */
export function formatAllowlistEnode(e: AllowlistEnode): string {
  const host = e.ip.includes(':') ? `[${e.ip}]` : e.ip;
  const listening = e.listeningPort ?? 0;
  const discovery = e.discoveryPort ?? 0;
  return `enode://${e.nodeId}@${host}:${listening}${listening === discovery ? '' : `?discport=${discovery}`}`;
}

/** EnodeURLImpl.equals: node id, IP, listening and discovery ports. */
export function sameEnode(a: AllowlistEnode, b: AllowlistEnode): boolean {
  return a.nodeId === b.nodeId && a.ip === b.ip && a.listeningPort === b.listeningPort && a.discoveryPort === b.discoveryPort;
}

/**
 * EnodeURLImpl.sameListeningEndpoint: the same IP and listening port (0 = not listening).
 * `ip` may be any textual IP (a socket's remote address); anything else never matches.
 */
export function sameListeningEndpoint(entry: AllowlistEnode, ip: string, listeningPort: number): boolean {
  const peerIp = canonicalIp(ip);
  return peerIp !== undefined && peerIp === entry.ip && (entry.listeningPort ?? 0) === listeningPort;
}

/** The canonical form of an IPv4 or (bracketless) IPv6 address, or undefined when it is neither. */
export function canonicalIp(text: string): string | undefined {
  return text.includes(':') ? canonicalIpv6Literal(text) : canonicalIpv4(text);
}

function ipv4Bytes(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    // Guava's InetAddresses refuses leading zeros (octal or decimal is ambiguous).
    if (!/^[0-9]{1,3}$/.test(p) || (p.length > 1 && p[0] === '0')) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out.push(n);
  }
  return out;
}

function canonicalIpv4(text: string): string | undefined {
  return ipv4Bytes(text)?.join('.');
}

/** An IPv6 literal in RFC 5952 form (an IPv4-mapped one as IPv4, as Java prints it). */
function canonicalIpv6Literal(text: string): string | undefined {
  return text.includes(':') ? normalizeIp(text) : undefined;
}
