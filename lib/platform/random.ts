// mulberry32: a small, fast, seeded pseudo-random generator (numbers in [0, 1)). Used where the same input must give
// the same output every time: the simulator's answers and pictures, the benchmark's generated requests.
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}
