/**
 * Seeded random numbers for the demo data generator, on pure-rand's xoroshiro128+.
 */
import type * as XoroshiroModule from 'pure-rand/lib/generator/xoroshiro128plus';
import type * as UniformFloat64Module from 'pure-rand/lib/distribution/uniformFloat64';
import type * as UniformIntModule from 'pure-rand/lib/distribution/uniformInt';
import type { JumpableRandomGenerator } from 'pure-rand/lib/types/JumpableRandomGenerator';

// pure-rand 8 publishes its modules only through package "exports", which this project's
// moduleResolution (node10) cannot see; Node's require can. So types come from the files
// themselves (erased at run time) and the code from the exported paths.
/* eslint-disable @typescript-eslint/no-require-imports -- see above */
const { xoroshiro128plus } = require('pure-rand/generator/xoroshiro128plus') as typeof XoroshiroModule;
const { uniformFloat64 } = require('pure-rand/distribution/uniformFloat64') as typeof UniformFloat64Module;
const { uniformInt } = require('pure-rand/distribution/uniformInt') as typeof UniformIntModule;
/* eslint-enable @typescript-eslint/no-require-imports */

/** 32-bit FNV-1a of a string: turns a stream name into seed material. */
function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * A mutable seeded random source. Each named stream of one seed is independent of the others, so
 * an attribute's values do not change when other attributes are added to or dropped from a run.
 */
export class Rng {
  private readonly gen: JumpableRandomGenerator;

  /** The stream `name` of `seed` (any integer; `name` may carry a user number). */
  constructor(seed: number, name: string) {
    const mixed = Math.imul(seed | 0, 0x9e3779b1) ^ hashString(name);
    this.gen = xoroshiro128plus(mixed | 0);
    // The first outputs of a freshly seeded xoroshiro are weakly mixed for nearby seeds.
    for (let i = 0; i < 8; i++) this.gen.next();
  }

  /** Uniform in [0, 1). */
  float(): number {
    return uniformFloat64(this.gen);
  }

  /** Uniform integer in [min, max], both included. */
  int(min: number, max: number): number {
    return uniformInt(this.gen, min, max);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  /** Normally distributed (Box-Muller). */
  normal(mean = 0, sd = 1): number {
    const u = 1 - this.float(); // (0, 1]: log(0) never happens
    const v = this.float();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** An index drawn with the given (not necessarily normalised) weights. */
  weighted(weights: readonly number[]): number {
    const total = weights.reduce((a, b) => a + b, 0);
    let x = this.float() * total;
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i];
      if (x < 0) return i;
    }
    return weights.length - 1;
  }

  /** Poisson-distributed count (Knuth; fine for the small means used here). */
  poisson(mean: number): number {
    const limit = Math.exp(-mean);
    let k = 0;
    let p = this.float();
    while (p > limit) {
      k++;
      p *= this.float();
    }
    return k;
  }

  /** One element, uniformly. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)];
  }
}
