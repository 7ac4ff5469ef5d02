import test from 'ava';
import { parseAllowlistEnode } from './allowlist-enode.ts';
import { MemoryAllowlistStore } from './allowlist-store.ts';
import { LocalPermissioning, type LoadedAllowlists } from './local-permissioning.ts';

const A = '0x0000000000000000000000000000000000000009';
const B = '0xb9b81ee349c3807e46bc71aa2632203c5b462032';
const ID = '6f8a80d14311c39f35f516fa664deaaaa13e85b2f7493f37f6144d86991ec012937307647bd3b9a82abe2974e1407241d54947bbb39763a4cac9f77166ad92a0';
const N1 = `enode://${ID}@192.168.0.9:4567`;
const N2 = `enode://${ID}@192.168.0.10:4567`;

function open(initial: LoadedAllowlists) {
  let file: LoadedAllowlists | Error = initial;
  const accountsStore = new MemoryAllowlistStore();
  const nodesStore = new MemoryAllowlistStore();
  const perm = new LocalPermissioning({
    loaded: initial,
    source: {
      load: () => {
        if (file instanceof Error) throw file;
        return file;
      },
    },
    accountsStore: initial.accounts ? accountsStore : undefined,
    nodesStore: initial.nodes ? nodesStore : undefined,
    localNodeId: 'ab'.repeat(64),
  });
  return { perm, accountsStore, nodesStore, setFile: (f: LoadedAllowlists | Error) => (file = f) };
}

test('senders: everyone without an accounts allowlist; only listed ones with it', (t) => {
  t.true(open({ nodes: [] }).perm.isSenderPermitted(B));
  const { perm, accountsStore } = open({ accounts: [A] });
  t.deepEqual(accountsStore.values, [A], 'the accounts list is written back at start-up');
  t.true(perm.isSenderPermitted(A.toUpperCase().replace('0X', '0x')));
  t.false(perm.isSenderPermitted(B));
  t.is(perm.nodes, undefined);
});

test('reload takes the file again; a broken file leaves each list as it was', (t) => {
  const { perm, setFile } = open({ accounts: [A], nodes: [parseAllowlistEnode(N1)] });
  setFile({ accounts: [B], nodes: [parseAllowlistEnode(N2)] });
  perm.reload();
  t.deepEqual(perm.accounts!.entries(), [B]);
  t.deepEqual(perm.nodes!.entries(), [N2]);
  setFile(new Error('nodes-allowlist config option missing in TOML config file x'));
  t.throws(() => perm.reload(), { message: /In-memory accounts allowlist will be reverted/ });
  t.deepEqual(perm.accounts!.entries(), [B]);
  t.deepEqual(perm.nodes!.entries(), [N2]);
  setFile({ accounts: [A, A], nodes: [parseAllowlistEnode(N1)] });
  const err = t.throws(() => perm.reload());
  t.regex(String((err!.cause as Error).message), /validation failed due to "ERROR_DUPLICATED_ENTRY"/);
  t.deepEqual(perm.accounts!.entries(), [B], 'accounts reverted');
  t.deepEqual(perm.nodes!.entries(), [N2], 'nodes not reached: Besu stops at the first failure');
});
