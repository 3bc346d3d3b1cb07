/**
 * The parts of undici the fetcher uses, loaded from undici's own files instead of its index: the
 * index loads all of undici (fetch, WebSocket, caches, mocks, proxies: 1.09 MB bundled, 77 ms to
 * load on this machine, against 35 ms for these), and every crawl pays its start-up before its
 * first request. Same classes, same code: the index only re-exports them (and adds the request API
 * to every dispatcher, which the fetcher does without: response-handler.ts).
 */
import Agent from 'undici/lib/dispatcher/agent.js';
import buildConnector from 'undici/lib/core/connect.js';

export { Agent, buildConnector };

