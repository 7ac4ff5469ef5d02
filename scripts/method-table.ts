/** `npm run method-table`: rewrites docs/rpc.md's table of every JSON-RPC method and its status. */
import { readFileSync, writeFileSync } from 'node:fs';
import { allMethods } from '../node/rpc/methods/index.ts';
import { startCluster } from '../node/rpc/methods/test-kit.ts';
import { methodTableMarkdown, withMethodTable } from '../node/rpc/method-table.ts';

const cluster = await startCluster();
const registered = new Map(allMethods(cluster.api).map((s) => [s.name, s.alwaysEnabled ? undefined : s.group] as const));
const readmePath = new URL('../docs/rpc.md', import.meta.url);
writeFileSync(readmePath, withMethodTable(readFileSync(readmePath, 'utf8'), methodTableMarkdown(registered)));
process.stdout.write(`docs/rpc.md: ${registered.size} served methods listed\n`);
process.exit(0);
