/** Who takes part in a run: node roles and the order reports list nodes in. */

export type NodeRole = 'validator' | 'observer' | 'twin';

/** The role a node's name gives it: `<name>-twin` a twin, v0, v1, ... validators, anything else an observer. */
export function roleOfName(name: string): NodeRole {
  if (/-twin$/.test(name)) return 'twin';
  return /^v\d+$/.test(name) ? 'validator' : 'observer';
}

/** v0, v1, ..., v10 (numeric), then observers, then twins. */
export function compareNodeNames(a: string, b: string): number {
  const rank = (n: string) => ({ validator: 0, observer: 1, twin: 2 })[roleOfName(n)];
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  const na = /\d+/.exec(a);
  const nb = /\d+/.exec(b);
  if (na && nb && Number(na[0]) !== Number(nb[0])) return Number(na[0]) - Number(nb[0]);
  return a < b ? -1 : a > b ? 1 : 0;
}
