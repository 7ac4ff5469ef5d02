import type { Writable } from 'node:stream';
import { subscriptionNotificationJson } from '../dispatcher.ts';

/**
 * JSON of notification results already serialized, by object: the subscription manager hands the
 * same result object (a newHeads block) to every subscriber, so it is stringified once, not once
 * per connection. Results are never changed after they are notified.
 */
const resultJson = new WeakMap<object, string>();

/** The `notify` of a connection: serializes an eth_subscription (or priv_subscription) notification and sends it. */
export function connectionNotifier(send: (text: string) => void, onError: (error: unknown) => void): (subscriptionId: string, result: unknown, privacyGroupId?: string) => void {
  return (subscriptionId, result, privacyGroupId) => {
    let text: string;
    try {
      if (privacyGroupId !== undefined) {
        const json = JSON.stringify(result ?? null);
        if (json === undefined) throw new TypeError('notification result is not JSON-serializable');
        text = `{"jsonrpc":"2.0","method":"priv_subscription","params":{"subscription":${JSON.stringify(subscriptionId)},"privacyGroupId":${JSON.stringify(privacyGroupId)},"result":${json}}}`;
      } else if (typeof result === 'object' && result !== null) {
        let json = resultJson.get(result);
        if (json === undefined) {
          json = JSON.stringify(result);
          if (json === undefined) throw new TypeError('notification result is not JSON-serializable');
          resultJson.set(result, json);
        }
        text = `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":${JSON.stringify(subscriptionId)},"result":${json}}}`;
      } else {
        text = subscriptionNotificationJson(subscriptionId, result);
      }
    } catch (e) {
      onError(e);
      return;
    }
    send(text);
  };
}

/**
 * Batches a stream's writes per synchronous run: the first call corks the stream and a microtask
 * uncorks it, so a burst of messages sent without yielding (a block's newHeads to every
 * connection, one subscription's logs of a block) leaves in one write system call instead of one
 * each, and nothing waits longer than the code that sends it.
 */
export function tickBatcher(stream: Writable): () => void {
  let corked = false;
  const uncork = (): void => {
    corked = false;
    stream.uncork();
  };
  return () => {
    if (corked) return;
    corked = true;
    stream.cork();
    queueMicrotask(uncork);
  };
}
