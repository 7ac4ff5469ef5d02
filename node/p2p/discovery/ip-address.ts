/**
 * IP addresses as discovery carries them: 4 bytes (IPv4) or 16 bytes (IPv6) on the wire, text
 * everywhere else. IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are treated as IPv4, because a
 * dual-stack socket reports IPv4 peers that way.
 */

/** Parses dotted-quad IPv4 text; undefined when it is not exactly four decimal octets. */
function parseIpv4(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    if (!/^\d{1,3}$/.test(parts[i]!)) return undefined;
    const n = Number(parts[i]);
    if (n > 255) return undefined;
    out[i] = n;
  }
  return out;
}

function parseIpv6Groups(text: string): number[] | undefined {
  if (text === '') return [];
  const groups: number[] = [];
  const parts = text.split(':');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIpv4(part);
      if (!v4) return undefined;
      groups.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
    } else {
      if (!/^[0-9a-fA-F]{1,4}$/.test(part)) return undefined;
      groups.push(parseInt(part, 16));
    }
  }
  return groups;
}

/** Parses IPv6 text (with "::" compression, an optional IPv4 tail and an ignored %zone). */
function parseIpv6(text: string): Uint8Array | undefined {
  const zone = text.indexOf('%');
  const body = zone >= 0 ? text.slice(0, zone) : text;
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const head = parseIpv6Groups(halves[0]!);
  const tail = halves.length === 2 ? parseIpv6Groups(halves[1]!) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  return out;
}

function isV4Mapped(bytes: Uint8Array): boolean {
  if (bytes.length !== 16) return false;
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

/** The wire form of an IP literal: 4 bytes for IPv4 (also when IPv4-mapped), 16 for IPv6. */
export function ipToBytes(text: string): Uint8Array | undefined {
  const v4 = parseIpv4(text);
  if (v4) return v4;
  const v6 = parseIpv6(text);
  if (!v6) return undefined;
  return isV4Mapped(v6) ? v6.slice(12) : v6;
}

/** Text of a 4- or 16-byte address (RFC 5952 compressed IPv6); undefined for other lengths. */
export function bytesToIp(bytes: Uint8Array): string | undefined {
  if (bytes.length === 4) return bytes.join('.');
  if (bytes.length !== 16) return undefined;
  if (isV4Mapped(bytes)) return bytes.subarray(12).join('.');
  const groups: number[] = [];
  for (let i = 0; i < 8; i++) groups.push((bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestLen < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/** The canonical text of an IP literal (IPv4-mapped becomes IPv4); undefined if not an IP. */
export function normalizeIp(text: string): string | undefined {
  const bytes = ipToBytes(text);
  return bytes ? bytesToIp(bytes) : undefined;
}

export function isIpLiteral(text: string): boolean {
  return ipToBytes(text) !== undefined;
}

export function isLoopbackIp(bytes: Uint8Array): boolean {
  if (bytes.length === 4) return bytes[0] === 127;
  return bytes.length === 16 && bytes.subarray(0, 15).every((b) => b === 0) && bytes[15] === 1;
}

export function isUnspecifiedIp(bytes: Uint8Array): boolean {
  return (bytes.length === 4 || bytes.length === 16) && bytes.every((b) => b === 0);
}

export function isMulticastIp(bytes: Uint8Array): boolean {
  if (bytes.length === 4) return bytes[0]! >= 224 && bytes[0]! <= 239;
  return bytes.length === 16 && bytes[0] === 0xff;
}

/** IPv4 private ranges (10/8, 172.16/12, 192.168/16, 169.254/16) and IPv6 fc00::/7, fe80::/10. */
export function isLanIp(bytes: Uint8Array): boolean {
  if (bytes.length === 4) {
    const [a, b] = [bytes[0]!, bytes[1]!];
    return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  return bytes.length === 16 && ((bytes[0]! & 0xfe) === 0xfc || (bytes[0] === 0xfe && (bytes[1]! & 0xc0) === 0x80));
}

/**
 * Whether a node address relayed in a Neighbours packet is acceptable, given the address the
 * packet came from: never unspecified or multicast; loopback only from a loopback sender; LAN
 * only from a LAN or loopback sender (so a public node cannot point us at our own network).
 */
export function isRelayableIp(relayed: Uint8Array, sender: Uint8Array): boolean {
  if (isUnspecifiedIp(relayed) || isMulticastIp(relayed)) return false;
  if (isLoopbackIp(relayed)) return isLoopbackIp(sender);
  if (isLanIp(relayed)) return isLanIp(sender) || isLoopbackIp(sender);
  return true;
}
