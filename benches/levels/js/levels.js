'use strict';
// The value functions of src/graph.rs, on BigInts (u64 arithmetic).

const M = (1n << 64n) - 1n;
const KEYS = 8n;

function fmix(z) {
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
  return z ^ (z >> 31n);
}

function mix(xs, salt) {
  let h = fmix(BigInt(salt) ^ 0x9e3779b97f4a7c15n);
  for (const x of xs) {
    h = fmix((h * 31n + x) & M);
  }
  return h;
}

function key(xs, salt, depth) {
  return depth * KEYS + (mix(xs, salt) % KEYS);
}

function answer(src, k) {
  return mix([k], 1000000n + BigInt(src));
}

function list(v) {
  const out = [];
  for (let i = 0n; i < 2n + (v % 3n); i++) out.push(mix([v, i], 7n));
  return out;
}

function slowKey(x) {
  return x % KEYS;
}

module.exports = { mix, key, answer, list, slowKey };
