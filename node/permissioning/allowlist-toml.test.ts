import test from 'ava';
import { parse as parseToml } from 'smol-toml';
import { accountsAllowlistOf, allowlistEntries, nodesAllowlistOf, parsePermissionsToml, PermissionsFileError, rewriteAllowlist } from './allowlist-toml.ts';
import { formatAllowlistEnode } from './allowlist-enode.ts';
import { MAX_ALLOWLIST_ENTRIES } from './allowlist-store.ts';

const ID = '6f8a80d14311c39f35f516fa664deaaaa13e85b2f7493f37f6144d86991ec012937307647bd3b9a82abe2974e1407241d54947bbb39763a4cac9f77166ad92a0';
const PATH = '/data/permissions_config.toml';

// The layout and values of Besu's test resource ethereum/permissioning/src/test/resources/permissioning_config.toml
// (hyperledger/besu, Apache-2.0): a comment line, then one line per list.
const BESU_SAMPLE = `# Permissioning TOML file

accounts-allowlist=["0x0000000000000000000000000000000000000009"]
nodes-allowlist=["enode://${ID}@192.168.0.9:4567","enode://${ID}@192.169.0.9:4568"]
`;

test("reads Besu's sample file", (t) => {
  const table = parsePermissionsToml(BESU_SAMPLE, PATH);
  t.deepEqual(accountsAllowlistOf(table, PATH), ['0x0000000000000000000000000000000000000009']);
  t.deepEqual(nodesAllowlistOf(table, PATH).map(formatAllowlistEnode), [`enode://${ID}@192.168.0.9:4567`, `enode://${ID}@192.169.0.9:4568`]);
  // Multi-line arrays with a trailing comma (permissioning_config_node_allowlist_only_multiline.toml).
  const multi = parsePermissionsToml(`nodes-allowlist=[\n"enode://${ID}@192.168.0.1:4567",\n"enode://${ID}@192.168.0.2:4567",\n]\n`, PATH);
  t.is(nodesAllowlistOf(multi, PATH).length, 2);
  // Empty lists are enabled, empty lists.
  const empty = parsePermissionsToml('accounts-allowlist=[]\nnodes-allowlist=[]\n', PATH);
  t.deepEqual(accountsAllowlistOf(empty, PATH), []);
  t.deepEqual(nodesAllowlistOf(empty, PATH), []);
});

test("errors are Besu's and name the file", (t) => {
  const fails = (f: () => unknown, message: string | RegExp) => t.throws(f, { instanceOf: PermissionsFileError, message });
  fails(() => parsePermissionsToml('accounts-allowlist=\n', PATH), /^Unable to read permissioning TOML config file : \/data\/permissions_config.toml Invalid TOML configuration: .*\(line 1, column \d+\)$/);
  fails(() => parsePermissionsToml('# nothing but a comment\n', PATH), `Unable to read permissioning TOML config file : ${PATH} Empty TOML result: # nothing but a comment\n`);
  // A typo in the key (permissioning_config_unrecognized_key.toml): the key is missing.
  const typo = parsePermissionsToml('perm-node-allowlist=[]\n', PATH);
  fails(() => nodesAllowlistOf(typo, PATH), `nodes-allowlist config option missing in TOML config file ${PATH}`);
  fails(() => accountsAllowlistOf(typo, PATH), `accounts-allowlist config option missing in TOML config file ${PATH}`);
  // Besu 26 reads no whitelist spelling.
  fails(() => accountsAllowlistOf(parsePermissionsToml('accounts-whitelist=["0x0000000000000000000000000000000000000009"]\n', PATH), PATH), /accounts-allowlist config option missing/);
  fails(() => accountsAllowlistOf(parsePermissionsToml('accounts-allowlist="0x0000000000000000000000000000000000000009"\n', PATH), PATH), /Value of 'accounts-allowlist' in TOML config file \/data\/permissions_config.toml is a string, expected an array/);
  fails(() => accountsAllowlistOf(parsePermissionsToml('accounts-allowlist=["0xfoo"]\n', PATH), PATH), `Invalid account 0xfoo (accounts-allowlist in ${PATH})`);
  fails(() => accountsAllowlistOf(parsePermissionsToml('accounts-allowlist=[9]\n', PATH), PATH), /Invalid account 9/);
  fails(() => nodesAllowlistOf(parsePermissionsToml('nodes-allowlist=["enode://bob@192.168.0.9:4567"]\n', PATH), PATH), /^Invalid enode URL syntax 'enode:\/\/bob@192.168.0.9:4567'.*Invalid node ID.*\(nodes-allowlist in \/data\/permissions_config.toml\)$/);
  const tooMany = `accounts-allowlist=[${Array.from({ length: MAX_ALLOWLIST_ENTRIES + 1 }, () => '"0x0000000000000000000000000000000000000009"').join(',')}]`;
  fails(() => accountsAllowlistOf(parsePermissionsToml(tooMany, PATH), PATH), /has 10001 entries; qbft-lab accepts at most 10000/);
});

test('write-back: the other allowlist line first, then this one, nothing else kept, no final newline', (t) => {
  const accounts = rewriteAllowlist(BESU_SAMPLE, 'accounts-allowlist', ['0x0000000000000000000000000000000000000009', '0xb9b81ee349c3807e46bc71aa2632203c5b462032']);
  t.is(
    accounts,
    `nodes-allowlist=["enode://${ID}@192.168.0.9:4567","enode://${ID}@192.169.0.9:4568"]\n` +
      'accounts-allowlist=["0x0000000000000000000000000000000000000009","0xb9b81ee349c3807e46bc71aa2632203c5b462032"]',
  );
  t.deepEqual(parseToml(accounts), {
    'nodes-allowlist': [`enode://${ID}@192.168.0.9:4567`, `enode://${ID}@192.169.0.9:4568`],
    'accounts-allowlist': ['0x0000000000000000000000000000000000000009', '0xb9b81ee349c3807e46bc71aa2632203c5b462032'],
  });
  t.is(rewriteAllowlist('nodes-allowlist=[]\n# comment\nother="x"\n', 'nodes-allowlist', []), 'nodes-allowlist=[]');
  t.is(rewriteAllowlist('accounts-allowlist=[]\n', 'nodes-allowlist', [`enode://${ID}@1.2.3.4:1`]), `accounts-allowlist=[]\nnodes-allowlist=["enode://${ID}@1.2.3.4:1"]`);
  t.deepEqual(allowlistEntries(accounts, 'nodes-allowlist'), [`enode://${ID}@192.168.0.9:4567`, `enode://${ID}@192.169.0.9:4568`]);
  t.deepEqual(allowlistEntries('x=1\n', 'nodes-allowlist'), []);
  t.throws(() => allowlistEntries('nodes-allowlist=', 'nodes-allowlist'));
  t.throws(() => rewriteAllowlist('accounts-allowlist="x"\n', 'nodes-allowlist', []), { message: /not an array/ });
});
