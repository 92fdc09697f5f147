/**
 * The bench's rounds change the servers' order (measure.ts, `roundOrder`), so that neither Daybook
 * nor the baseline always runs right after the same server: over two rounds each goes first once,
 * and each follows the bare baseline once and the other once.
 */
import { roundOrder } from './measure';

const TARGETS = ['daybook', 'baseline', 'bare'] as const;

/** Who ran right before `target` in each of rounds 2..`rounds` (the sequence of rounds, one after another). */
function predecessors(targets: readonly string[], rounds: number, target: string): string[] {
  const sequence = Array.from({ length: rounds }, (_, i) => roundOrder(targets, i + 1)).flat();
  return sequence.flatMap((name, i) => (i > 0 && name === target && i >= targets.length ? [sequence[i - 1]] : []));
}

test('odd rounds keep the given order; even rounds swap Daybook and the baseline', () => {
  expect(roundOrder(TARGETS, 1)).toEqual(['daybook', 'baseline', 'bare']);
  expect(roundOrder(TARGETS, 2)).toEqual(['baseline', 'daybook', 'bare']);
  expect(roundOrder(TARGETS, 3)).toEqual(['daybook', 'baseline', 'bare']);
  expect(roundOrder(['daybook', 'baseline'], 2)).toEqual(['baseline', 'daybook']);
  expect(roundOrder(['daybook'], 2)).toEqual(['daybook']);
});

test('Daybook and the baseline each follow the bare baseline and each other equally often', () => {
  // Rounds 2-5 (four rounds after the first): each of the two follows bare twice and the other twice.
  for (const target of ['daybook', 'baseline']) {
    const before = predecessors(TARGETS, 5, target).sort();
    const other = target === 'daybook' ? 'baseline' : 'daybook';
    expect(before).toEqual([other, other, 'bare', 'bare'].sort());
  }
});
