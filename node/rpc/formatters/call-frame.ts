/**
 * debug_trace*'s callTracer result: a call tree as Besu's CallTracerResult writes it.
 */
import { bytesToHex } from '../../crypto/bytes.ts';
import type { CallFrame } from '../../execution/tracers/call-tracer.ts';

/** Besu CallTracerResult JSON (property order of its @JsonPropertyOrder; absent fields omitted). */
export function formatCallFrame(f: CallFrame, decodeReason: (hex: string) => string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { from: f.from, gas: `0x${f.gas.toString(16)}`, gasUsed: `0x${f.gasUsed.toString(16)}` };
  if (f.to !== undefined) out.to = f.to;
  out.input = bytesToHex(f.input);
  if (f.output !== undefined) out.output = bytesToHex(f.output);
  if (f.error !== undefined) out.error = f.error;
  if (f.error === 'execution reverted') {
    const reason = f.output ? decodeReason(bytesToHex(f.output)) : f.revertReason ? decodeReason(bytesToHex(f.revertReason)) : undefined;
    if (reason !== undefined && reason !== 'ABI decode error') out.revertReason = reason;
    else if (f.revertReason) out.revertReason = bytesToHex(f.revertReason);
  }
  if (f.calls.length > 0) out.calls = f.calls.map((c) => formatCallFrame(c, decodeReason));
  if (f.value !== undefined) out.value = `0x${f.value.toString(16)}`;
  out.type = f.type;
  return out;
}
