/**
 * QBFT quorum arithmetic, kept in node/chain/quorum.ts so the header rules (commit seals) reach it
 * without importing consensus; re-exported here for the consensus core, the simulator and reports.
 */
export { earlyRoundChangeQuorum, maxFaulty, quorumSize } from '../../chain/quorum.ts';
