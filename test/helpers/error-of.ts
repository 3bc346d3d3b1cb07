import { TopicrawlError } from '../../src/errors.js';

/** The TopicrawlError `fn` throws; any other error is rethrown, and nothing thrown fails the test. */
export function errorOf(fn: () => unknown): TopicrawlError {
  try {
    fn();
  } catch (err) {
    if (err instanceof TopicrawlError) return err;
    throw err;
  }
  throw new Error('expected a TopicrawlError, nothing was thrown');
}
