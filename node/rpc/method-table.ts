/**
 * docs/rpc.md's table of every method of every API group with its status in qbft-lab: generated
 * from the registry, so the table cannot drift from what the node serves (a test compares them;
 * `npm run method-table` rewrites that section).
 */
import { ALL_API_GROUPS, BESU_RPC_METHOD_NAMES, groupOfBesuMethod, type ApiGroup } from './registry.ts';

export const METHOD_TABLE_START = '<!-- method-table:start -->';
export const METHOD_TABLE_END = '<!-- method-table:end -->';

/** The group a method is listed under: its Besu group, else its prefix's (qbft-lab's own methods). */
function listedGroup(name: string, groupOf: (name: string) => ApiGroup | undefined): ApiGroup | undefined {
  return groupOfBesuMethod(name) ?? groupOf(name);
}

/**
 * `registered`: every method name the node registers, with its group. Methods of the interface
 * that are not registered answer -32604 "Method not enabled" (Besu's answer for a known method
 * that is not served).
 */
export function methodTableMarkdown(registered: ReadonlyMap<string, ApiGroup | undefined>): string {
  const groupOf = (name: string) => registered.get(name);
  const names = [...new Set([...BESU_RPC_METHOD_NAMES, ...registered.keys()])];
  const lines = [
    '| group | served | answers -32604 "Method not enabled" |',
    '|---|---|---|',
  ];
  for (const group of ALL_API_GROUPS) {
    const mine = names.filter((n) => listedGroup(n, groupOf) === group).sort();
    const served = mine.filter((n) => registered.has(n));
    const missing = mine.filter((n) => !registered.has(n));
    const list = (xs: string[]) => (xs.length === 0 ? '—' : xs.map((x) => `\`${x}\``).join(' '));
    lines.push(`| ${group} (${served.length}/${mine.length}) | ${list(served)} | ${list(missing)} |`);
  }
  const ungrouped = names.filter((n) => listedGroup(n, groupOf) === undefined).sort();
  if (ungrouped.length > 0) lines.push(`| (every group) | ${ungrouped.filter((n) => registered.has(n)).map((x) => `\`${x}\``).join(' ') || '—'} | ${ungrouped.filter((n) => !registered.has(n)).map((x) => `\`${x}\``).join(' ') || '—'} |`);
  return lines.join('\n');
}

/** The document (docs/rpc.md) with its method table section replaced. */
export function withMethodTable(readme: string, table: string): string {
  const start = readme.indexOf(METHOD_TABLE_START);
  const end = readme.indexOf(METHOD_TABLE_END);
  if (start < 0 || end < start) throw new Error(`the document has no ${METHOD_TABLE_START} ... ${METHOD_TABLE_END} section`);
  return `${readme.slice(0, start + METHOD_TABLE_START.length)}\n${table}\n${readme.slice(end)}`;
}
