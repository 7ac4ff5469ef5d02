import { subscriptionNotificationJson } from '../dispatcher.ts';

/** The `notify` of a connection: serializes an eth_subscription notification and sends it. */
export function connectionNotifier(send: (text: string) => void, onError: (error: unknown) => void): (subscriptionId: string, result: unknown) => void {
  return (subscriptionId, result) => {
    let text: string;
    try {
      text = subscriptionNotificationJson(subscriptionId, result);
    } catch (e) {
      onError(e);
      return;
    }
    send(text);
  };
}
