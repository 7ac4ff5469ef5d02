/**
 * enode URLs: enode://<node id, 128 hex digits>@<host>:<tcp port>[?discport=<udp port>].
 * IPv6 hosts are written in brackets. Errors say which part is wrong.
 */
import { bytesToHex, hexToBytes } from '../../crypto/bytes.ts';
import { isValidNodeId, NODE_ID_BYTES } from './node-identity.ts';

export interface Enode {
  nodeId: Uint8Array;
  /** IPv4 address, IPv6 address (without brackets) or host name. */
  host: string;
  tcpPort: number;
  /** The discovery (UDP) port when it differs from the TCP port. */
  discoveryPort?: number;
}

export class EnodeUrlError extends Error {
  constructor(url: string, problem: string) {
    super(`invalid enode URL ${JSON.stringify(url.length > 300 ? `${url.slice(0, 300)}...` : url)}: ${problem}`);
    this.name = 'EnodeUrlError';
  }
}

function parsePort(text: string, what: string, url: string): number {
  if (!/^\d{1,5}$/.test(text)) throw new EnodeUrlError(url, `${what} ${JSON.stringify(text)} is not a number`);
  const port = Number(text);
  if (port > 65535) throw new EnodeUrlError(url, `${what} ${port} is out of range 0-65535`);
  return port;
}

export function enodeUrl(nodeId: Uint8Array, host: string, port: number, discoveryPort?: number): string {
  if (nodeId.length !== NODE_ID_BYTES) throw new Error(`node id must be ${NODE_ID_BYTES} bytes, got ${nodeId.length}`);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`port ${port} is out of range 0-65535`);
  if (host.length === 0) throw new Error('host is empty');
  const hostPart = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const query = discoveryPort !== undefined && discoveryPort !== port ? `?discport=${discoveryPort}` : '';
  return `enode://${bytesToHex(nodeId).slice(2)}@${hostPart}:${port}${query}`;
}

export function parseEnodeUrl(url: string): Enode {
  const m = /^enode:\/\/([^@]*)@(.*)$/.exec(url);
  if (!m) throw new EnodeUrlError(url, 'expected enode://<node id>@<host>:<port>');
  const [, idHex, rest] = m;
  if (!/^[0-9a-fA-F]*$/.test(idHex)) throw new EnodeUrlError(url, 'node id is not hexadecimal');
  if (idHex.length !== 2 * NODE_ID_BYTES) throw new EnodeUrlError(url, `node id must be ${2 * NODE_ID_BYTES} hex digits, got ${idHex.length}`);
  const nodeId = hexToBytes(idHex);
  if (!isValidNodeId(nodeId)) throw new EnodeUrlError(url, 'node id is not a secp256k1 public key');

  const [address, query, ...more] = rest.split('?');
  if (more.length > 0) throw new EnodeUrlError(url, 'more than one "?"');
  let host: string;
  let portText: string;
  if (address.startsWith('[')) {
    const close = address.indexOf(']');
    if (close < 0 || address[close + 1] !== ':') throw new EnodeUrlError(url, 'expected [<ipv6>]:<port>');
    host = address.slice(1, close);
    portText = address.slice(close + 2);
  } else {
    const colon = address.lastIndexOf(':');
    if (colon < 0) throw new EnodeUrlError(url, 'missing :<port>');
    host = address.slice(0, colon);
    portText = address.slice(colon + 1);
    if (host.includes(':')) throw new EnodeUrlError(url, 'an IPv6 host must be written in brackets');
  }
  if (host.length === 0) throw new EnodeUrlError(url, 'missing host');
  if (!/^[A-Za-z0-9.\-_:%]+$/.test(host)) throw new EnodeUrlError(url, `host ${JSON.stringify(host)} has invalid characters`);
  const tcpPort = parsePort(portText, 'port', url);

  const enode: Enode = { nodeId, host, tcpPort };
  if (query !== undefined) {
    const params = new URLSearchParams(query);
    for (const key of params.keys()) if (key !== 'discport') throw new EnodeUrlError(url, `unknown query parameter ${JSON.stringify(key)}`);
    const disc = params.get('discport');
    if (disc === null) throw new EnodeUrlError(url, 'empty query');
    enode.discoveryPort = parsePort(disc, 'discport', url);
  }
  return enode;
}
