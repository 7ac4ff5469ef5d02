/**
 * The privacy expectations catch what they guard against: a manager that leaks payloads to a
 * non-member fails 'no-private-state', and a node that never reports removed private logs fails
 * 'private-logs' with `removed`.
 */
import test from 'ava';
import privateGroup from '../scenarios/private-group.ts';
import type { PrivacyGroup, PtmMessage } from '../node/privacy/private-tx-manager.ts';
import { runScenario } from './scenario-runner.ts';
import { privacyKeyOf } from './privacy-run.ts';
import type { Scenario } from './scenario.ts';
import type { World } from './world.ts';

const withStep = (name: string): Scenario => ({ ...privateGroup, steps: [...privateGroup.steps, { atMs: 200, do: 'custom', name }] });

test('private-group passes as shipped', async (t) => {
  const r = await runScenario(privateGroup);
  t.true(r.ok, JSON.stringify(r.expectations));
});

test('a planted leak (members also encrypt payloads for the non-member and push them, and its manager skips its checks) fails no-private-state', async (t) => {
  const leak = async (world: World) => {
    for (const name of ['v2', 'v3']) {
      const privacy = world.get(name).node!.privacy()!;
      const send = privacy.peers.send.bind(privacy.peers);
      privacy.peers.send = (toKey: string, message: PtmMessage) => {
        send(toKey, message);
        if (message.kind === 'group') send(privacyKeyOf('v1'), message);
      };
      const ptm = privacy.ptm as unknown as { recipientsOf: (g: PrivacyGroup) => string[] };
      const recipientsOf = ptm.recipientsOf.bind(ptm);
      ptm.recipientsOf = (g) => [...recipientsOf(g), privacyKeyOf('v1')];
    }
    // v1's manager takes any group it is sent, member or not.
    const ptm = world.get('v1').node!.privacy()!.ptm as unknown as { acceptGroup: (from: string, g: PrivacyGroup) => PrivacyGroup; keepGroup: (g: PrivacyGroup, pin: boolean) => void; groups: Map<string, PrivacyGroup> };
    ptm.acceptGroup = (_from, g) => {
      const widened = { ...g, members: [...g.members, privacyKeyOf('v1')] };
      ptm.groups.set(g.privacyGroupId, widened);
      return widened;
    };
  };
  const r = await runScenario(withStep('leak'), { steps: { leak } });
  t.false(r.ok);
  const failed = r.expectations.filter((e) => !e.ok).map((e) => e.text);
  t.deepEqual(failed, ['v1 hold no private receipt, log or state (non-members)']);
});

test('a planted bug that drops removed private receipts on a reorganization fails private-logs with removed', async (t) => {
  const forgetRemoved = async (world: World) => {
    const privacy = world.get('v3').node!.privacy()!;
    const onReorg = privacy.onReorg.bind(privacy);
    privacy.onReorg = (reorg, genesis) => onReorg({ removed: [], added: reorg.added }, genesis);
  };
  const r = await runScenario(withStep('forget-removed'), { steps: { 'forget-removed': forgetRemoved } });
  t.false(r.ok);
  t.deepEqual(r.expectations.filter((e) => !e.ok).map((e) => e.text), ['v3 receive at least 2 private logs through priv_subscribe, at least 1 with removed: true']);
});
