/**
 * Jest's order of test files, heaviest first. Jest's own sequencer orders by the durations of the
 * previous run, but only when its cache holds them: on a fresh clone (CI) it falls back to file
 * size, and a file that takes a minute and a half can start last and run alone on one core while
 * the other worker is idle. The files below are the slowest of a whole run (seconds on the 2-core
 * CI machine; docs/running-and-testing.md, "Suite time"); they start first, in this order, and the rest follow
 * in jest's own order (the previous durations when cached, else size).
 */
import Sequencer from '@jest/test-sequencer';

/** Paths from the project root, slowest first. */
const HEAVIEST = [
  'test/web/layout.test.ts',
  'test/robustness/fuzz.test.ts',
  'test/security/throttle-attacks.test.ts',
  'test/robustness/database-down.test.ts',
  'test/web/charts-browser.test.ts',
];

class HeaviestFirst extends Sequencer {
  async sort(tests) {
    const ordered = await super.sort(tests);
    const rank = (test) => {
      const relative = test.path
        .slice(test.context.config.rootDir.length + 1)
        .split('\\')
        .join('/');
      const index = HEAVIEST.indexOf(relative);
      return index === -1 ? HEAVIEST.length : index;
    };
    // Array.prototype.sort is stable: files outside the list keep jest's order.
    return [...ordered].sort((a, b) => rank(a) - rank(b));
  }
}

export default HeaviestFirst;
