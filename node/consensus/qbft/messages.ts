/** QBFT consensus messages: types, signing, wire encoding (split under ./messages/). */
export * from './messages/types.ts';
export { signPayload } from './messages/signed.ts';
export { decodeMessage, encodeMessage, messageCode, roundIdOf } from './messages/wire.ts';
