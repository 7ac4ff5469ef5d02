import test from 'ava';
import { BASE_PROTOCOL_MESSAGE_SPACE, capabilityOfMessageId, ETH_68, ISTANBUL_100, negotiateCapabilities, validateLocalCapabilities } from './capabilities.ts';

test('capabilities: shared ones sorted by name, highest shared version, offsets from 0x10', (t) => {
  const eth67 = { name: 'eth', version: 67, messageCount: 17 };
  const shared = negotiateCapabilities(
    [ISTANBUL_100, eth67, ETH_68, { name: 'snap', version: 1, messageCount: 8 }],
    [
      { name: 'istanbul', version: 100 },
      { name: 'eth', version: 66 },
      { name: 'eth', version: 67 },
      { name: 'eth', version: 68 },
      { name: 'les', version: 4 },
    ],
  );
  t.deepEqual(shared, [
    { ...ETH_68, offset: BASE_PROTOCOL_MESSAGE_SPACE },
    { ...ISTANBUL_100, offset: 0x10 + 17 },
  ]);
  // QBFT's Commit (istanbul code 0x14) rides on wire id 0x21 + 0x14.
  t.deepEqual(capabilityOfMessageId(shared, 0x21 + 0x14), { capability: shared[1], code: 0x14 });
  t.deepEqual(capabilityOfMessageId(shared, 0x10), { capability: shared[0], code: 0 });
  t.is(capabilityOfMessageId(shared, 0x21 + 22), undefined);
  t.is(capabilityOfMessageId(shared, 0x0f), undefined);
  t.deepEqual(negotiateCapabilities([ETH_68], [{ name: 'eth', version: 67 }]), []);
  t.deepEqual(negotiateCapabilities([ETH_68], [{ name: 'ETH', version: 68 }]), []);
  const istanbulOnly = negotiateCapabilities([ETH_68, ISTANBUL_100], [{ name: 'istanbul', version: 100 }]);
  t.is(istanbulOnly[0].offset, 0x10);
});

test('local capabilities are validated', (t) => {
  t.notThrows(() => validateLocalCapabilities([ETH_68, ISTANBUL_100]));
  t.throws(() => validateLocalCapabilities([]));
  t.throws(() => validateLocalCapabilities([ETH_68, ETH_68]));
  t.throws(() => validateLocalCapabilities([{ name: 'toolongname', version: 1, messageCount: 1 }]));
  t.throws(() => validateLocalCapabilities([{ name: 'x', version: 1, messageCount: 0 }]));
});
