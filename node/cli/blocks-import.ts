/**
 * `qbft-lab blocks import`: Besu's `besu blocks import --from FILE`, for files of concatenated RLP
 * blocks. Each block is validated and executed like a block from a peer (on a QBFT chain: header,
 * seals and execution; on an `ethash` chain: everything but proof of work) and the chain is
 * written to the node's LevelDB store under --data-path, where `qbft-lab node` serves it.
 * A genesis block in the file is skipped when it is this genesis, refused otherwise.
 */
import { readFileSync } from 'node:fs';
import { RLP } from '@ethereumjs/rlp';
import { blockFromRlp } from '../chain/block-hashing.ts';
import { bytesToHex } from '../crypto/bytes.ts';
import type { QbftNode } from '../node.ts';
import { parseNodeOptions } from './node-options.ts';
import { openLiveNodeCore } from './live-node.ts';
import { UsageError } from './usage-error.ts';

export class BlockImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlockImportError';
  }
}

/** Splits a file of concatenated RLP items into the items' bytes. */
export function splitConcatenatedRlp(bytes: Uint8Array): Uint8Array[] {
  const items: Uint8Array[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    let remainder: Uint8Array;
    try {
      ({ remainder } = RLP.decode(bytes.subarray(offset), true) as { remainder: Uint8Array });
    } catch (err) {
      throw new BlockImportError(`malformed RLP at byte ${offset} (item ${items.length}): ${(err as Error).message}`);
    }
    const end = bytes.length - remainder.length;
    items.push(bytes.subarray(offset, end));
    offset = end;
  }
  return items;
}

export interface ImportSummary {
  imported: number;
  /** Blocks already in the chain (the genesis block, or a file imported twice). */
  known: number;
  head: { number: number; hash: string };
}

/** Imports blocks in file order; stops at the first block that fails, naming it and why. */
export async function importBlocks(node: QbftNode, blocks: Uint8Array[]): Promise<ImportSummary> {
  let imported = 0;
  let known = 0;
  for (const [i, bytes] of blocks.entries()) {
    let block;
    try {
      block = blockFromRlp(bytes, node.common);
    } catch (err) {
      throw new BlockImportError(`item ${i} is not a block: ${(err as Error).message}`);
    }
    const hash = bytesToHex(node.hashOf(block.header));
    if (block.header.number === 0n) {
      if (hash !== node.genesisBlock().hash) throw new BlockImportError(`the file's genesis block ${hash} is not this genesis (${node.genesisBlock().hash})`);
      known++;
      continue;
    }
    const outcome = await node.importBlock(block);
    if (!outcome.ok) throw new BlockImportError(`block ${block.header.number} (${hash}) was refused: ${outcome.reason}`);
    if (outcome.status === 'known') known++;
    else imported++;
  }
  const head = node.head();
  return { imported, known, head: { number: head.number, hash: head.hash } };
}

export const IMPORT_OPTIONS = new Set(['from', 'format', 'skip-pow-validation-enabled']);

/** Separates `blocks import`'s own options from the node options that follow Besu's names. */
function splitArgs(args: string[]): { files: string[]; format: string; nodeArgs: string[] } {
  const files: string[] = [];
  let format = 'RLP';
  const nodeArgs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const m = /^--([\w-]+)(?:=(.*))?$/.exec(args[i]);
    if (!m || !IMPORT_OPTIONS.has(m[1])) {
      nodeArgs.push(args[i]);
      continue;
    }
    if (m[1] === 'skip-pow-validation-enabled') continue; // proof of work is never checked here
    const value = m[2] ?? args[++i];
    if (value === undefined || value.startsWith('--')) throw new UsageError(`Missing required parameter for option '--${m[1]}'`);
    if (m[1] === 'from') files.push(...value.split(','));
    else format = value.toUpperCase();
  }
  return { files, format, nodeArgs };
}

export async function blocksImportCommand(args: string[], out: (text: string) => void): Promise<number> {
  const { files, format, nodeArgs } = splitArgs(args);
  if (files.length === 0) throw new UsageError("Missing required option: '--from=<blocksImportFiles>'");
  if (format !== 'RLP') throw new UsageError(`--format ${format} is not supported (only RLP)`);
  const opts = parseNodeOptions(nodeArgs);
  const core = await openLiveNodeCore(opts, { p2pEnabled: false });
  try {
    for (const file of files) {
      let bytes: Uint8Array;
      try {
        bytes = readFileSync(file);
      } catch (err) {
        throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
      }
      const summary = await importBlocks(core.node, splitConcatenatedRlp(bytes));
      out(`${file}: imported ${summary.imported} blocks (${summary.known} already known); head ${summary.head.number} ${summary.head.hash}`);
    }
  } catch (err) {
    if (err instanceof BlockImportError) {
      out(`import failed: ${err.message}`);
      return 1;
    }
    throw err;
  } finally {
    await core.close();
  }
  return 0;
}
