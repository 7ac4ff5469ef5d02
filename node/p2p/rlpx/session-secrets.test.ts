import test from 'ava';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from '../../crypto/bytes.ts';
import { FrameDecoder, FrameEncoder } from './frame-codec.ts';
import { nodeIdFromPrivateKey } from './node-identity.ts';
import { createKeccakState, deriveSessionSecrets, macKeccakProvider, useMacKeccakProvider } from './session-secrets.ts';
import vectors from './testdata/eip8-vectors.json' with { type: 'json' };

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function vectorSecrets(role: 'initiator' | 'recipient') {
  const ephA = hexToBytes(vectors.ephemeralKeyA);
  const ephB = hexToBytes(vectors.ephemeralKeyB);
  return deriveSessionSecrets({
    role,
    ephemeralPrivateKey: role === 'initiator' ? ephA : ephB,
    remoteEphemeralId: nodeIdFromPrivateKey(role === 'initiator' ? ephB : ephA),
    initiatorNonce: hexToBytes(vectors.nonceA),
    recipientNonce: hexToBytes(vectors.nonceB),
    authPacket: hexToBytes(vectors.auth2Eip8),
    ackPacket: hexToBytes(vectors.ack2Eip8),
  });
}

/** Runs `body` with the MAC keccak provider set to `kind`, restoring the previous one. */
function withProvider<T>(kind: 'native' | 'noble', body: () => T): T {
  const before = macKeccakProvider();
  useMacKeccakProvider(kind);
  try {
    return body();
  } finally {
    useMacKeccakProvider(before);
  }
}

test('the native keccak addon serves the frame MACs where its prebuilt binary exists', (t) => {
  // The `keccak` package ships prebuilds for x64 Linux, macOS and Windows.
  if (process.arch === 'x64' && ['linux', 'darwin', 'win32'].includes(process.platform)) t.is(macKeccakProvider(), 'native');
  else t.pass(`provider on ${process.platform}-${process.arch}: ${macKeccakProvider()}`);
});

test('the MAC state matches noble over random incremental updates, clones and digests', (t) => {
  const rand = lcg(7);
  for (let run = 0; run < 20; run++) {
    const ours = createKeccakState();
    const theirs = keccak_256.create();
    for (let step = 0; step < 30; step++) {
      const bytes = new Uint8Array(Math.floor(rand() * 400)).map(() => Math.floor(rand() * 256));
      // A view at an offset into a larger buffer, as frame ciphertexts are.
      const offset = Math.floor(rand() * 8);
      const view = new Uint8Array(bytes.length + offset + 3).subarray(offset, offset + bytes.length);
      view.set(bytes);
      ours.update(view);
      theirs.update(bytes);
      if (rand() < 0.4) t.is(bytesToHex(ours.clone().digest()), bytesToHex(theirs.clone().digest()));
    }
    t.is(bytesToHex(ours.digest()), bytesToHex(theirs.digest()));
  }
});

test('both providers give the EIP-8 ingress MAC of "foo" from the vectors', (t) => {
  for (const kind of ['native', 'noble'] as const) {
    const mac = withProvider(kind, () => vectorSecrets('recipient').ingressMac);
    t.is(bytesToHex(mac.clone().update(new TextEncoder().encode('foo')).digest()).slice(2), vectors.auth2Ack2IngressMacOfFooAtB, kind);
  }
});

test('frames MACed with one provider are accepted by the other, both ways', (t) => {
  for (const [sender, receiver] of [
    ['native', 'noble'],
    ['noble', 'native'],
  ] as const) {
    const enc = new FrameEncoder(withProvider(sender, () => vectorSecrets('initiator')));
    const dec = new FrameDecoder(withProvider(receiver, () => vectorSecrets('recipient')));
    const sizes = [1, 16, 17, 150, 5000, 70_000];
    const frames = sizes.map((n, i) => new Uint8Array(n).map((_, j) => (j * 13 + i) & 0xff));
    const got = frames.flatMap((f) => dec.push(enc.encode(f)));
    t.deepEqual(got, frames, `${sender} -> ${receiver}`);
  }
});
