// Loaded by ava into each test worker thread of the fast lane (ava.config.js `require`): worker
// threads do not take node's --import, so the TypeScript loader is registered here.
import { register } from 'tsx/esm/api';

register();
