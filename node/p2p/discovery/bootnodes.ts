/** Bootnodes: enode URLs turned into addresses to ping (host names resolved once, at start). */
import { lookup } from 'node:dns/promises';
import { bytesToHex } from '../../crypto/bytes.ts';
import type { Log } from '../../runtime/ports.ts';
import { parseEnodeUrl } from '../rlpx/enode.ts';
import { ipToBytes, normalizeIp } from './ip-address.ts';

/** A node to ping: its id and discovery endpoint, and the TCP port it is known to listen on. */
export interface PingTarget {
  id: Uint8Array;
  /** 128 lowercase hex digits, no 0x. */
  idHex: string;
  host: string;
  udpPort: number;
  tcpPort: number;
}

export interface BootnodeContext {
  localIdHex: string;
  /** Whether our socket is IPv6 (dual-stack); an IPv4 socket cannot reach IPv6 bootnodes. */
  ipv6: boolean;
  log: Pick<Log, 'log'>;
}

/**
 * The pingable bootnodes among `urls`. The UDP port is the URL's `discport` if present, else its
 * TCP port. Bad URLs, unresolvable or unreachable hosts and our own id are skipped with a warning.
 */
export async function resolveBootnodes(urls: string[], ctx: BootnodeContext): Promise<PingTarget[]> {
  const out: PingTarget[] = [];
  for (const url of urls) {
    try {
      const enode = parseEnodeUrl(url);
      const idHex = bytesToHex(enode.nodeId).slice(2);
      if (idHex === ctx.localIdHex) continue;
      let host = normalizeIp(enode.host);
      if (host === undefined) host = normalizeIp((await lookup(enode.host, { family: ctx.ipv6 ? 0 : 4 })).address);
      if (host === undefined) throw new Error(`cannot resolve ${enode.host}`);
      if (!ctx.ipv6 && ipToBytes(host)!.length === 16) throw new Error(`cannot reach IPv6 address ${host} from an IPv4 socket`);
      out.push({ id: enode.nodeId, idHex, host, udpPort: enode.discoveryPort ?? enode.tcpPort, tcpPort: enode.tcpPort });
    } catch (e) {
      ctx.log.log('warn', 'ignoring bootnode', { url: url.slice(0, 200), error: (e as Error).message });
    }
  }
  return out;
}
