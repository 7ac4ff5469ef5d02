/**
 * Attaching a tracer to the EVM's events for one run: `step`, `beforeMessage` and `afterMessage`
 * listeners on, and the undo that takes them off again.
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm';
import type { VM } from '@ethereumjs/vm';

export interface EvmListeners {
  /** One parameter: the EVM does not wait for it (a listener with two is awaited). */
  step(s: InterpreterStep): void;
  before(m: Message): void;
  after(r: EVMResult): void;
}

/** Puts the listeners on the VM's EVM; the returned function takes them off. */
export function listenToEvm(vm: VM, l: EvmListeners): () => void {
  const events = vm.evm.events;
  const step = (s: InterpreterStep) => l.step(s);
  const before = (m: Message) => l.before(m);
  const after = (r: EVMResult) => l.after(r);
  events?.on('step', step);
  events?.on('beforeMessage', before);
  events?.on('afterMessage', after);
  return () => {
    events?.removeListener('step', step);
    events?.removeListener('beforeMessage', before);
    events?.removeListener('afterMessage', after);
  };
}
