/**
 * Besu's EthTransferLogOperationTracer (eth_simulateV1 with traceTransfers): an ERC-20 style
 * Transfer log, from the pseudo-address 0xeeee…, for every ETH transfer.
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { VM } from '@ethereumjs/vm';
import { hexToBytes } from '../../crypto/bytes.ts';

/** ethereumjs' log shape: [address, topics, data]. */
export type RawLog = [Uint8Array, Uint8Array[], Uint8Array];

const TRANSFER_LOG_ADDRESS = hexToBytes('0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee');
const TRANSFER_TOPIC = hexToBytes('0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef');

function word(value: bigint): Uint8Array {
  return hexToBytes(`0x${value.toString(16).padStart(64, '0')}`);
}

function addressWord(address: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(address, 12);
  return out;
}

/**
 * Besu's EthTransferLogOperationTracer: a log for every frame that moves value to another account
 * and for every SELFDESTRUCT (the balance it sends, zero included); a failed frame drops the logs
 * it and its children made.
 */
export class TransferLogTracer {
  readonly logs: RawLog[] = [];
  private readonly marks: Array<{ at: number; pendingCreate?: RawLog }> = [];

  attach(vm: VM): () => void {
    const events = vm.evm.events;
    const before = (m: Message) => this.enter(m);
    const after = (r: EVMResult) => this.exit(r);
    // two parameters: the EVM awaits the listener, which reads the live balance
    const step = (s: InterpreterStep, resolve?: () => void) => {
      const done = () => resolve?.();
      this.step(vm, s).then(done, done);
    };
    events?.on('beforeMessage', before);
    events?.on('afterMessage', after);
    events?.on('step', step);
    return () => {
      events?.removeListener('beforeMessage', before);
      events?.removeListener('afterMessage', after);
      events?.removeListener('step', step);
    };
  }

  private enter(m: Message): void {
    const mark: { at: number; pendingCreate?: RawLog } = { at: this.logs.length };
    // a DELEGATECALL frame carries no value of its own (Besu: its value is zero, only the apparent value is set)
    const moves = m.value > 0n && !m.delegatecall && (m.to === undefined || !m.to.equals(m.caller));
    if (moves) {
      const log: RawLog = [TRANSFER_LOG_ADDRESS, [TRANSFER_TOPIC, addressWord(m.caller.bytes), addressWord(m.to?.bytes ?? new Uint8Array(20))], word(m.value)];
      if (m.to === undefined) mark.pendingCreate = log;
      this.logs.push(log);
    }
    this.marks.push(mark);
  }

  private exit(r: EVMResult): void {
    const mark = this.marks.pop();
    if (!mark) return;
    if (r.execResult.exceptionError !== undefined) this.logs.length = mark.at;
    else if (mark.pendingCreate && r.createdAddress) mark.pendingCreate[1][2] = addressWord(r.createdAddress.bytes);
  }

  private async step(vm: VM, s: InterpreterStep): Promise<void> {
    if (s.opcode.name !== 'SELFDESTRUCT') return;
    const beneficiary = (s.stack[s.stack.length - 1] ?? 0n) & ((1n << 160n) - 1n);
    const to = hexToBytes(`0x${beneficiary.toString(16).padStart(40, '0')}`);
    const balance = (await vm.stateManager.getAccount(s.address))?.balance ?? 0n;
    this.logs.push([TRANSFER_LOG_ADDRESS, [TRANSFER_TOPIC, addressWord(s.address.bytes), addressWord(to)], word(balance)]);
  }
}

