import { nameFromLabel, spelledName } from '../../src/domain/tracking/writes/label-name';

/** A small seeded generator (the same texts every run). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('nameFromLabel', () => {
  test('an ASCII label is named as by the general rule (NFKD, the table, Unicode letters and digits): every one- and two-character label', () => {
    const chars = Array.from({ length: 127 }, (_, code) => String.fromCharCode(code + 1));
    for (const a of chars) {
      expect(nameFromLabel(a)).toBe(spelledName(a));
      for (const b of chars) expect(nameFromLabel(a + b)).toBe(spelledName(a + b));
    }
  });

  test('an ASCII label is named as by the general rule: 20,000 random labels of up to 100 characters, words among them', () => {
    const next = random(35);
    const pieces = [' ', '_', '-', '  ', 'Steps', 'cups', 'OF', 'tea', '2', '10k', '!', '.', '__', '\t'];
    for (let i = 0; i < 20_000; i++) {
      let label = '';
      while (label.length < 1 + Math.floor(next() * 100)) {
        label += next() < 0.5 ? pieces[Math.floor(next() * pieces.length)] : String.fromCharCode(1 + Math.floor(next() * 127));
      }
      label = label.slice(0, 100);
      expect(nameFromLabel(label)).toBe(spelledName(label));
    }
  });

  test('names of the usual labels, and of labels in other scripts', () => {
    expect(nameFromLabel('Cups of tea')).toBe('cups_of_tea');
    expect(nameFromLabel('  Hello, World!  ')).toBe('hello_world');
    expect(nameFromLabel('Bench created 4f2a1c 12 34')).toBe('bench_created_4f2a1c_12_34');
    expect(nameFromLabel('__Sleep__score__')).toBe('sleep_score');
    expect(nameFromLabel('--- ...')).toBe('');
    expect(nameFromLabel('Café au lait')).toBe('cafe_au_lait');
    expect(nameFromLabel('Straße')).toBe('strasse');
    expect(nameFromLabel('日本語')).toMatch(/^custom_[0-9]+$/);
    // Letters outside ASCII whose lower case is ASCII (the Kelvin sign) or is not (the dotted capital I).
    for (const label of ['300 \u212a', '\u0130stanbul', 'A\u212aB']) expect(nameFromLabel(label)).toBe(spelledName(label));
  });
});
