import { defineExtensionMessaging } from '@webext-core/messaging';
import type { DatabaseAnswer, DatabaseCall } from './host';

/**
 * Database messages, in a map of their own (@webext-core/messaging allows one listener per
 * message type per context, and runtime messages reach every extension page):
 * - databaseCall: the management page → the background (schema, test query, forget);
 * - databaseOffscreenCall: Chrome's service worker → the offscreen document, which holds the worker.
 */
export interface DatabaseProtocol {
  databaseCall(data: DatabaseCall): DatabaseAnswer;
  databaseOffscreenCall(data: DatabaseCall): DatabaseAnswer;
}

export const databaseMessaging = defineExtensionMessaging<DatabaseProtocol>();
