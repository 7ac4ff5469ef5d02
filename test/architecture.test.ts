/**
 * The architecture rules of architecture-rules.ts over the repository's sources, and tests of the
 * checker itself: each planted break gives exactly its violation, an allowed import none.
 * (The runtime half, a scenario run under throwing clock and timer stubs, is architecture-runtime.test.ts.)
 */
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, repoFiles } from './repo-files.ts';
import { blankComments, checkArchitecture, formatViolation, importsOf, nodeRankOf, unusedAllowances, type SourceFile, type Violation } from './architecture-rules.ts';

const SCANNED_FOLDERS = ['node', 'sim', 'scenarios', 'reports', 'cli', 'bin', 'scripts', 'test'];
const isSource = (name: string) => /\.(tsx?|js|mjs|cjs)$/.test(name) && !/\.test\.tsx?$/.test(name);
/** The library entry (index.ts) and any other .ts file at the root. */
const isRootSource = (name: string) => /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name);

function repositorySources(): SourceFile[] {
  const rootSources = readdirSync(REPO_ROOT).filter(isRootSource);
  return [...rootSources, ...SCANNED_FOLDERS.flatMap((d) => repoFiles(d, isSource))].map((path) => ({ path, source: readFileSync(join(REPO_ROOT, path), 'utf8') }));
}

const brief = (vs: Violation[]) => vs.map(({ path, line, rule, subject }) => ({ path, line, rule, subject }));
const check = (path: string, source: string) => brief(checkArchitecture([{ path, source }]));

test('the repository keeps its architecture', (t) => {
  const files = repositorySources();
  const paths = new Set(files.map((f) => f.path));
  t.true(files.length > 200, `the scan found the source tree (${files.length} files)`);
  for (const p of ['node/node.ts', 'sim/kernel.ts', 'sim/checkers/agreement.ts', 'reports/html.ts', 'scenarios/index.ts', 'cli/main.ts']) t.true(paths.has(p), p);
  t.false([...paths].some((p) => p.endsWith('.test.ts')), 'tests themselves are not scanned');
  const violations = checkArchitecture(files);
  t.deepEqual(violations.map(formatViolation), [], `\n${violations.map(formatViolation).join('\n')}`);
  t.deepEqual(files.filter((f) => f.path.startsWith('node/') && nodeRankOf(f.path) === undefined).map((f) => f.path), [], 'every node/ module has a rank in NODE_ORDER');
});

test('a folder-order violation planted in the repository is caught, alone', (t) => {
  const planted = { path: 'node/chain/planted-rule.ts', source: "import { HeightManager } from '../consensus/qbft/height-manager.ts';\nexport const x = HeightManager;\n" };
  t.deepEqual(brief(checkArchitecture([...repositorySources(), planted])), [
    { path: 'node/chain/planted-rule.ts', line: 1, rule: 'folder-order', subject: 'node/consensus/qbft/height-manager.ts' },
  ]);
});

test('every allowance and known exception is still needed', (t) => {
  t.deepEqual(unusedAllowances(repositorySources()), []);
});

test('node/ importing sim/ breaks the layering', (t) => {
  t.deepEqual(check('node/consensus/qbft/state.ts', "import { x } from './quorum.ts';\nimport { World } from '../../../sim/world.ts';\n"), [
    { path: 'node/consensus/qbft/state.ts', line: 2, rule: 'layering', subject: 'sim/world.ts' },
  ]);
  // Re-exports, multi-line imports, import('...') and require('...') count too.
  t.deepEqual(check('node/chain/a.ts', "export { r } from '../../reports/html.ts';\nimport {\n  a,\n  b,\n} from '../../scenarios/index.ts';\nconst m = await import('../../cli/main.ts');\nconst k = require('../../test/process-kit.ts');\n"), [
    { path: 'node/chain/a.ts', line: 1, rule: 'layering', subject: 'reports/html.ts' },
    { path: 'node/chain/a.ts', line: 2, rule: 'layering', subject: 'scenarios/index.ts' },
    { path: 'node/chain/a.ts', line: 6, rule: 'layering', subject: 'cli/main.ts' },
    { path: 'node/chain/a.ts', line: 7, rule: 'layering', subject: 'test/process-kit.ts' },
  ]);
  t.deepEqual(check('sim/world.ts', "import { run } from '../cli/main.ts';"), [{ path: 'sim/world.ts', line: 1, rule: 'layering', subject: 'cli/main.ts' }]);
  // The library entry sits above the simulator: nothing below imports it, and it reaches node/ through the surface.
  t.deepEqual(check('sim/world.ts', "import { fuzz } from '../index.ts';"), [{ path: 'sim/world.ts', line: 1, rule: 'layering', subject: 'index.ts' }]);
  t.deepEqual(check('index.ts', "export { runScenario } from './sim/scenario-runner.ts';\nexport { HeightManager } from './node/consensus/qbft/height-manager.ts';\nexport { run } from './cli/main.ts';"), [
    { path: 'index.ts', line: 2, rule: 'node-surface', subject: 'node/consensus/qbft/height-manager.ts' },
    { path: 'index.ts', line: 3, rule: 'layering', subject: 'cli/main.ts' },
  ]);
});

test('a deep import from sim/ into node internals off the surface is refused', (t) => {
  t.deepEqual(check('sim/new-fault.ts', "import { RoundState } from '../node/consensus/qbft/round-state.ts';"), [
    { path: 'sim/new-fault.ts', line: 1, rule: 'node-surface', subject: 'node/consensus/qbft/round-state.ts' },
  ]);
  // A surface module with a single user is refused to anyone else.
  t.deepEqual(check('sim/network.ts', "import { TrieNodeStore } from '../node/execution/state-db.ts';"), [
    { path: 'sim/network.ts', line: 1, rule: 'node-surface', subject: 'node/execution/state-db.ts' },
  ]);
  t.deepEqual(check('reports/summary.ts', "import { signRemembered } from '../node/consensus/qbft/signer-cache.ts';"), [
    { path: 'reports/summary.ts', line: 1, rule: 'node-surface', subject: 'node/consensus/qbft/signer-cache.ts' },
  ]);
});

test('an invariant checker may not use node code', (t) => {
  t.deepEqual(check('sim/checkers/new-check.ts', "import { quorumSize } from '../../node/consensus/qbft/quorum.ts';"), [
    { path: 'sim/checkers/new-check.ts', line: 1, rule: 'checker-independence', subject: 'node/consensus/qbft/quorum.ts' },
  ]);
  t.deepEqual(check('sim/checkers/toolkit/x.ts', "import { validate } from '../../../node/consensus/qbft/validation.ts';"), [
    { path: 'sim/checkers/toolkit/x.ts', line: 1, rule: 'checker-independence', subject: 'node/consensus/qbft/validation.ts' },
  ]);
  // Only types of the trace events and ports.
  t.deepEqual(check('sim/checkers/new-check.ts', "import type { NodeTraceEvent } from '../../node/runtime/trace-events.ts';"), []);
  t.deepEqual(check('sim/checkers/new-check.ts', "import { NODE_EVENTS } from '../../node/runtime/trace-events.ts';"), [
    { path: 'sim/checkers/new-check.ts', line: 1, rule: 'checker-independence', subject: 'node/runtime/trace-events.ts' },
  ]);
});

test('node: built-ins outside the live runtime are refused, per file and per module', (t) => {
  t.deepEqual(check('node/consensus/qbft/state.ts', "import { readFileSync } from 'node:fs';"), [
    { path: 'node/consensus/qbft/state.ts', line: 1, rule: 'built-in', subject: 'node:fs' },
  ]);
  t.deepEqual(check('node/chain/x.ts', "import fs from 'fs';\nconst cp = require('child_process');\nimport { LiveTimers } from '../runtime/live-timers.ts';"), [
    { path: 'node/chain/x.ts', line: 1, rule: 'built-in', subject: 'node:fs' },
    { path: 'node/chain/x.ts', line: 2, rule: 'built-in', subject: 'node:child_process' },
    { path: 'node/chain/x.ts', line: 3, rule: 'built-in', subject: 'node/runtime/live-timers.ts' },
  ]);
  // An allowed file may use only its listed modules.
  t.deepEqual(check('node/crypto/keccak.ts', "import { createRequire } from 'node:module';"), []);
  t.deepEqual(check('node/crypto/keccak.ts', "import { connect } from 'node:net';"), [{ path: 'node/crypto/keccak.ts', line: 1, rule: 'built-in', subject: 'node:net' }]);
  // Reading a genesis file lives in node/cli; the genesis parser itself may not touch the disk.
  t.deepEqual(check('node/chain/genesis.ts', "import { readFileSync } from 'node:fs';"), [{ path: 'node/chain/genesis.ts', line: 1, rule: 'built-in', subject: 'node:fs' }]);
  // The live edges.
  for (const path of ['node/runtime/live-store.ts', 'node/rpc/transports/http.ts', 'node/cli/live-node.ts', 'cli/main.ts', 'test/bench.ts', 'node/execution/engine-bench.ts', 'node/p2p/rlpx/rlpx-test-kit.ts']) {
    t.deepEqual(check(path, "import { createServer } from 'node:net';\nconst t0 = Date.now();\nsetTimeout(f, 1);"), [], path);
  }
});

test('real timers, the wall clock and OS randomness are refused in the simulated world', (t) => {
  t.deepEqual(check('sim/network.ts', 'const a = 1;\nsetTimeout(() => deliver(m), 5);'), [{ path: 'sim/network.ts', line: 2, rule: 'determinism', subject: 'setTimeout' }]);
  t.deepEqual(check('sim/world.ts', 'const startedMs = Date.now();'), [{ path: 'sim/world.ts', line: 1, rule: 'determinism', subject: 'Date' }]);
  t.deepEqual(check('sim/random.ts', 'export const next = () => Math.random();'), [{ path: 'sim/random.ts', line: 1, rule: 'determinism', subject: 'Math.random' }]);
  const each: Array<[string, string]> = [
    ['new Date()', 'Date'],
    ['Date()', 'Date'],
    ['setInterval(f, 1)', 'setInterval'],
    ['setImmediate(f)', 'setImmediate'],
    ['globalThis.setTimeout(f, 1)', 'setTimeout'],
    ['performance.now()', 'performance.now'],
    ['process.hrtime.bigint()', 'process.hrtime'],
    ['crypto.randomBytes(8)', 'randomBytes'],
    ['crypto.getRandomValues(b)', 'getRandomValues'],
    ['crypto.randomUUID()', 'randomUUID'],
  ];
  for (const [snippet, token] of each) {
    t.deepEqual(check('node/consensus/qbft/x.ts', `const a = ${snippet};`), [{ path: 'node/consensus/qbft/x.ts', line: 1, rule: 'determinism', subject: token }], snippet);
  }
  // The kernel's one setImmediate (drain mode 'immediate') is allowed; nothing else there is.
  t.deepEqual(check('sim/kernel.ts', 'new Promise((r) => setImmediate(r));'), []);
  t.deepEqual(check('sim/kernel.ts', 'new Promise((r) => setTimeout(r, 0));'), [{ path: 'sim/kernel.ts', line: 1, rule: 'determinism', subject: 'setTimeout' }]);
  // The simulator's in-process RPC transport sits among the live transports but is not live.
  t.deepEqual(check('node/rpc/transports/in-process.ts', 'setTimeout(f, 1);'), [{ path: 'node/rpc/transports/in-process.ts', line: 1, rule: 'determinism', subject: 'setTimeout' }]);
  // Deterministic uses and mentions are not calls.
  t.deepEqual(check('sim/trace.ts', 'const d = new Date(0).toISOString(); const u = Date.UTC(2024, 0); const r = rng.random();'), [
    { path: 'sim/trace.ts', line: 1, rule: 'determinism', subject: 'Date' },
  ]);
  t.deepEqual(check('sim/trace.ts', 'const u = Date.UTC(2024, 0); let d: Date; const x = o.getDate();'), []);
});

test('comments are not code, strings and template literals are', (t) => {
  t.deepEqual(check('sim/a.ts', "// setTimeout(f, 1)\n/* Math.random() and\n   import x from '../node/chain/block-import.ts' */\nconst u = 'http://host/x'; // Date.now()\n"), []);
  t.deepEqual(check('sim/a.ts', "const u = 'http://host/x'; setTimeout(f, 1);"), [{ path: 'sim/a.ts', line: 1, rule: 'determinism', subject: 'setTimeout' }]);
  t.deepEqual(check('sim/a.ts', "const g = '**/*.ts';\nconst h = '*/';\nsetTimeout(f, 1);"), [{ path: 'sim/a.ts', line: 3, rule: 'determinism', subject: 'setTimeout' }]);
  t.deepEqual(check('sim/a.ts', 'const s = `a ${b ? `/* ${c} */` : "//"} d`;\nsetTimeout(f, 1);'), [{ path: 'sim/a.ts', line: 2, rule: 'determinism', subject: 'setTimeout' }]);
  t.deepEqual(check('sim/a.ts', "const re = /\\/\\*/g; const s = 'x';\nsetTimeout(f, 1); // */"), [{ path: 'sim/a.ts', line: 2, rule: 'determinism', subject: 'setTimeout' }]);
  const code = "import a from './a.ts'; // c\n/* x */ const b = 1;";
  t.is(blankComments(code).length, code.length);
  t.deepEqual(importsOf(blankComments(code)), [{ specifier: './a.ts', line: 1, typeOnly: false }]);
});

test('production code may not import a test helper; tests and benchmarks may', (t) => {
  t.deepEqual(check('sim/world.ts', "import { fixture } from './checkers/test-fixtures.ts';"), [
    { path: 'sim/world.ts', line: 1, rule: 'test-helper', subject: 'sim/checkers/test-fixtures.ts' },
  ]);
  t.deepEqual(check('node/p2p/eth-server.ts', "import { peer } from './sync-test-kit.ts';"), [
    { path: 'node/p2p/eth-server.ts', line: 1, rule: 'test-helper', subject: 'node/p2p/sync-test-kit.ts' },
  ]);
  t.deepEqual(check('node/execution/engine-bench.ts', "import { blocks } from './test-fixtures.ts';"), []);
  // A test helper is test code: it may build a simulated world, but not from inside node/.
  t.deepEqual(check('test/new-kit.ts', "import { World } from '../sim/world.ts';"), []);
  t.deepEqual(check('node/p2p/new-test-kit.ts', "import { World } from '../../sim/world.ts';"), [
    { path: 'node/p2p/new-test-kit.ts', line: 1, rule: 'layering', subject: 'sim/world.ts' },
  ]);
  // Inside node/ it may use any folder (a test may build the whole node).
  t.deepEqual(check('node/chain/new-test-kit.ts', "import { createNode } from '../node.ts';\nimport { startRpc } from '../rpc/server.ts';"), []);
});

test('a node/ module may import only folders of its rank or below (NODE_ORDER)', (t) => {
  const planted: SourceFile[] = [
    // Upward, type-only imports included.
    { path: 'node/chain/header-rules.ts', source: "import { quorumSize } from './quorum.ts';\nimport type { RoundState } from '../consensus/qbft/round-state.ts';" },
    { path: 'node/crypto/bytes.ts', source: "import type { Block } from '../chain/block.ts';" },
    { path: 'node/consensus/qbft/height-manager.ts', source: "import { sendTo } from '../../p2p/eth-server.ts';" },
    { path: 'node/runtime/trace-events.ts', source: "import type { InProcessRpc } from '../rpc/transports/in-process.ts';" },
    { path: 'node/rpc/methods/eth.ts', source: "import type { QbftNode } from '../../node.ts';" },
    { path: 'node/node.ts', source: "import { liveNode } from './cli/live-node.ts';" },
    // A folder that has no rank yet.
    { path: 'node/mempool/pool.ts', source: "import { keccak256 } from '../crypto/keccak.ts';" },
  ];
  t.deepEqual(brief(checkArchitecture(planted)), [
    { path: 'node/chain/header-rules.ts', line: 2, rule: 'folder-order', subject: 'node/consensus/qbft/round-state.ts' },
    { path: 'node/consensus/qbft/height-manager.ts', line: 1, rule: 'folder-order', subject: 'node/p2p/eth-server.ts' },
    { path: 'node/crypto/bytes.ts', line: 1, rule: 'folder-order', subject: 'node/chain/block.ts' },
    { path: 'node/mempool/pool.ts', line: 1, rule: 'folder-order', subject: 'node/crypto/keccak.ts' },
    { path: 'node/node.ts', line: 1, rule: 'folder-order', subject: 'node/cli/live-node.ts' },
    { path: 'node/rpc/methods/eth.ts', line: 1, rule: 'folder-order', subject: 'node/node.ts' },
    { path: 'node/runtime/trace-events.ts', line: 1, rule: 'folder-order', subject: 'node/rpc/transports/in-process.ts' },
  ]);
  t.regex(checkArchitecture([planted[2]])[0].message, /^consensus may not import p2p/);
  t.regex(checkArchitecture([planted[6]])[0].message, /node\/mempool\/pool\.ts has no rank/);
  // Downward and sideways within a rank are allowed; the live runtime sits on top beside node/cli.
  const allowed: SourceFile[] = [
    { path: 'node/chain/header-rules.ts', source: "import { keccak256 } from '../crypto/keccak.ts';\nimport type { Store } from '../runtime/ports.ts';" },
    { path: 'node/crypto/x.ts', source: "import { BoundedSet } from '../collections/bounded-set.ts';" },
    { path: 'node/p2p/rlpx/rlpx-connection.ts', source: "import { LiveTimers } from '../../runtime/live-timers.ts';" },
    { path: 'node/node.ts', source: "import { startRpc } from './rpc/server.ts';\nimport { HeightManager } from './consensus/qbft/height-manager.ts';" },
    { path: 'node/runtime/live-rlpx-transport.ts', source: "import { listenOn } from '../rpc/transports/listen.ts';\nimport { RlpxConnection } from '../p2p/rlpx/rlpx-connection.ts';" },
    { path: 'node/cli/live-node.ts', source: "import { createNode } from '../node.ts';\nimport { RlpxTransport } from '../runtime/live-rlpx-transport.ts';" },
  ];
  t.deepEqual(brief(checkArchitecture(allowed)), []);
});

test('allowed imports give no violation', (t) => {
  const allowed: SourceFile[] = [
    { path: 'sim/new-fault.ts', source: "import { createNode } from '../node/node.ts';\nimport type { Timers } from '../node/runtime/ports.ts';\nimport { keccak256 } from '../node/crypto/keccak.ts';\nimport { rlp } from '@ethereumjs/rlp';" },
    { path: 'sim/byzantine/new-attack.ts', source: "import { encodeMessage } from '../../node/consensus/qbft/messages.ts';" },
    { path: 'sim/checkers/new-check.ts', source: "import type { TraceLine } from '../trace.ts';\nimport { keccak256 } from './toolkit/crypto.ts';" },
    { path: 'scenarios/new.ts', source: "import type { Scenario } from '../sim/scenario.ts';" },
    { path: 'reports/new.ts', source: "import { runScenario } from '../sim/scenario-runner.ts';\nimport { findScenario } from '../scenarios/index.ts';\nimport { quorumSize } from '../node/consensus/qbft/quorum.ts';" },
    { path: 'cli/new-command.ts', source: "import { LiveTimers } from '../node/runtime/live-timers.ts';\nimport { writeHtmlReport } from '../reports/html.ts';\nimport { readFileSync } from 'node:fs';" },
    { path: 'node/consensus/qbft/new.ts', source: "import { quorumSize } from './quorum.ts';\nimport type { Clock } from '../../runtime/ports.ts';" },
  ];
  t.deepEqual(checkArchitecture(allowed), []);
});

// ---- reach-through: the node's parts stay behind its composition root (NODE_REACH) ----------------

const repoFile = (path: string): SourceFile => ({ path, source: readFileSync(join(REPO_ROOT, path), 'utf8') });
/** The root, the handle and the view as they are: the rules read the handle's members and the view's interfaces from them. */
const nodeSurfaceFiles = () => ['node/node.ts', 'node/parts/node-handle.ts', 'node/view/node-view.ts'].map(repoFile);
const reachOf = (files: SourceFile[]) => brief(checkArchitecture(files)).filter((v) => v.rule === 'reach-through');

test('a reach-through planted in the repository is caught, alone: a part imported from outside, a node internal reached through a cast', (t) => {
  const planted: SourceFile[] = [
    { path: 'node/cli/planted-import.ts', source: "import { BlockImporter } from '../parts/block-importer.ts';\nexport const x = BlockImporter;\n" },
    {
      path: 'reports/teach/planted-reach.ts',
      source: "import type { QbftNode } from '../../node/node.ts';\nexport const heightOf = (node: QbftNode) => (node as unknown as { chain: { head(): { number: number } } }).chain.head().number;\n",
    },
  ];
  t.deepEqual(brief(checkArchitecture([...repositorySources(), ...planted])), [
    { path: 'node/cli/planted-import.ts', line: 1, rule: 'reach-through', subject: 'node/parts/block-importer.ts' },
    { path: 'reports/teach/planted-reach.ts', line: 2, rule: 'reach-through', subject: 'chain' },
  ]);
});

test('only the composition root and the parts import a part; a part from sim/ is off the surface too', (t) => {
  t.deepEqual(check('sim/probe.ts', "import { TxIndex } from '../node/parts/tx-index.ts';"), [
    { path: 'sim/probe.ts', line: 1, rule: 'node-surface', subject: 'node/parts/tx-index.ts' },
    { path: 'sim/probe.ts', line: 1, rule: 'reach-through', subject: 'node/parts/tx-index.ts' },
  ]);
  t.deepEqual(check('node/cli/probe.ts', "export { TxIndex } from '../parts/tx-index.ts';\nconst m = await import('../parts/wire-router.ts');"), [
    { path: 'node/cli/probe.ts', line: 1, rule: 'reach-through', subject: 'node/parts/tx-index.ts' },
    { path: 'node/cli/probe.ts', line: 2, rule: 'reach-through', subject: 'node/parts/wire-router.ts' },
  ]);
  t.deepEqual(check('node/parts/new-part.ts', "import type { TxIndex } from './tx-index.ts';"), []);
  t.deepEqual(check('node/node.ts', "import { TxIndex } from './parts/tx-index.ts';"), []);
});

test('from node/node.ts the outside imports createNode, the view, the actions and config and value types only', (t) => {
  t.deepEqual(check('sim/probe.ts', "import { createNode, type NodeView, type QbftNode, type NodeConfig, type ChainEntry } from '../node/node.ts';"), []);
  t.deepEqual(check('node/cli/probe.ts', "import { createNode, TX_INDEX_LIMIT } from '../node.ts';\nimport * as node from '../node.ts';\nimport type { QbftNode as N } from '../node.ts';"), [
    { path: 'node/cli/probe.ts', line: 1, rule: 'reach-through', subject: 'TX_INDEX_LIMIT' },
    { path: 'node/cli/probe.ts', line: 2, rule: 'reach-through', subject: '*' },
  ]);
  // The root itself exports nothing else.
  const root = repoFile('node/node.ts');
  t.deepEqual(reachOf([{ path: root.path, source: `${root.source}\nexport { TxIndex } from './parts/tx-index.ts';\nexport const internals = {};\n` }]).map((v) => v.subject), ['TxIndex', 'internals']);
});

test('the composition root is a page of wiring: at most 250 lines and no class of its own', (t) => {
  const root = repoFile('node/node.ts');
  const lines = root.source.split('\n').length - 1;
  t.true(lines <= 250, `${lines} lines`);
  t.deepEqual(reachOf([root]), []);
  const padded = `${root.source}${'// wiring\n'.repeat(251 - lines)}`;
  t.deepEqual(reachOf([{ path: root.path, source: padded }]).map((v) => v.subject), ['251 lines']);
  t.deepEqual(reachOf([{ path: root.path, source: `${root.source}class Jobs {}\n` }]).map((v) => v.subject), lines < 250 ? ['class Jobs'] : [`${lines + 1} lines`, 'class Jobs']);
});

test('the node object has no public field or member beyond its view, actions and driver; the view hands out no part', (t) => {
  const [root, handle, view] = nodeSurfaceFiles();
  const anchor = "  private mining: MiningState = 'RUNNING';\n";
  t.true(handle.source.includes(anchor));
  const planted = handle.source.replace(anchor, `${anchor}  chain!: Chain;\n  get engine(): ExecutionEngine {\n    return this.parts.engine;\n  }\n  private hidden = 1;\n`);
  t.deepEqual(reachOf([root, view, { path: handle.path, source: planted }]).map((v) => v.subject), ['chain', 'engine']);
  t.deepEqual(reachOf([root, view, handle]), [], 'as it is');
  const hands = view.source.replace("import type { Clock, PeerId, Random } from '../runtime/ports.ts';", "import type { Clock, PeerId, Random } from '../runtime/ports.ts';\nimport type { TxPool } from '../execution/tx-pool.ts';");
  t.deepEqual(reachOf([root, handle, { path: view.path, source: hands }]).map((v) => v.subject), ['TxPool']);
});

test('outside the node, its private members and parts are not reached through a cast or by name; its view is', (t) => {
  const probe = [
    "import type { QbftNode } from '../node/node.ts';",
    'export function probe(node: QbftNode) {',
    '  const a = (node as any).engine.stats;',
    '  const b = (<any>node).pool;',
    "  const c = node['parts'];",
    '  const d = (node as unknown as { mining: string })!.mining;',
    '  return [a, b, c, d, node.head(), node.poolSize(), (node as QbftNode).config, (x as Foo).chainId];',
    '}',
  ].join('\n');
  t.deepEqual(reachOf([...nodeSurfaceFiles(), { path: 'sim/probe.ts', source: probe }]).map(({ line, subject }) => [line, subject]), [
    [3, 'engine'],
    [4, 'pool'],
    [5, 'parts'],
    [6, 'mining'],
  ]);
  // The node's own modules and tests may (tests are not scanned).
  t.deepEqual(reachOf([...nodeSurfaceFiles(), { path: 'node/parts/probe.ts', source: probe.replace('../node/node.ts', '../node.ts') }]), []);
});

// ---- bug switches: named and read in node/bugs/ and sim/bugs/ only; the node asks its hooks ------

test('a bug switch read planted in the repository is caught, alone: the core asks node/bugs/hooks.ts', (t) => {
  const planted: SourceFile[] = [
    {
      path: 'node/parts/planted-bug.ts',
      source: "import type { BugSwitches } from '../bugs/bug-switches.ts';\nexport const early = (bugs: BugSwitches) => bugs.has('besu-2095');\n",
    },
  ];
  t.deepEqual(brief(checkArchitecture([...repositorySources(), ...planted])), [{ path: 'node/parts/planted-bug.ts', line: 2, rule: 'bug-switch', subject: 'besu-2095' }]);
});

test('switch names in strings and template literals, and the switch module imported for more than its types, are switch reads', (t) => {
  const source = [
    "import { ruleEnforced, type BugSwitches } from '../../bugs/bug-switches.ts';",
    'const a = cfg.bugs.has("ghsa-23rh");',
    'const b = bugs.has(`plant-skip-${rule}`);',
    "const c = ['plant-sync-seals'];",
    "// bugs.has('besu-1734') in a comment is not code",
    "const d = 'besu26'; const e = 'besu-version';",
  ].join('\n');
  t.deepEqual(check('node/consensus/qbft/x.ts', source), [
    { path: 'node/consensus/qbft/x.ts', line: 1, rule: 'bug-switch', subject: 'node/bugs/bug-switches.ts' },
    { path: 'node/consensus/qbft/x.ts', line: 2, rule: 'bug-switch', subject: 'ghsa-23rh' },
    { path: 'node/consensus/qbft/x.ts', line: 3, rule: 'bug-switch', subject: 'plant-skip-${rule}' },
    { path: 'node/consensus/qbft/x.ts', line: 4, rule: 'bug-switch', subject: 'plant-sync-seals' },
  ]);
  // The simulator outside sim/bugs/ names no switch either; it may hand the node an empty switch set.
  t.deepEqual(check('sim/fuzz.ts', "const hunt = ['besu-6613'];"), [{ path: 'sim/fuzz.ts', line: 1, rule: 'bug-switch', subject: 'besu-6613' }]);
  t.deepEqual(check('sim/harness/x.ts', "import { NO_BUGS } from '../../node/bugs/bug-switches.ts';"), []);
  // Their homes, the types of the switch set, and the tools that name switches as a user types them.
  t.deepEqual(check('node/bugs/hooks.ts', "import { ruleEnforced } from './bug-switches.ts';\nconst x = switches.has('besu-2095');"), []);
  t.deepEqual(check('sim/bugs/catalogue.ts', "const id = 'besu-6613';"), []);
  t.deepEqual(check('node/view/node-config.ts', "import type { BugSwitches } from '../bugs/bug-switches.ts';"), []);
  t.deepEqual(check('cli/command-docs.ts', "const example = ['fuzz', '--bug', 'besu-6613'];"), []);
});
