'use strict';
// Runs generated level-graph programs (src/emit_js.rs) with npm dataloader.
// Usage: node run.js PROGRAMS.js CONFIG.json
// CONFIG: { "latency_ms": [4 numbers], "x": "decimal", "styles": [..] }
// Prints one JSON line per program and style:
// { name, style, result, calls: [4], keys: [4], ms }.

const path = require('path');
const DataLoader = require('dataloader');

process.env.LEVELS_JS_LIB = path.join(__dirname, 'levels.js');
const { answer } = require('./levels.js');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function loaders(latency, calls, keys) {
  return latency.map(
    (ms, i) =>
      new DataLoader(async (ks) => {
        calls[i] += 1;
        keys[i] += ks.length;
        if (ms > 0) await sleep(ms);
        return ks.map((k) => answer(i, k));
      }),
  );
}

async function main() {
  const programs = require(path.resolve(process.argv[2]));
  const config = JSON.parse(require('fs').readFileSync(process.argv[3], 'utf8'));
  const x = BigInt(config.x);
  for (const p of programs) {
    for (const style of config.styles) {
      const calls = [0, 0, 0, 0];
      const keys = [0, 0, 0, 0];
      const L = loaders(config.latency_ms, calls, keys);
      const t0 = process.hrtime.bigint();
      const result = await p[style](L, x);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      console.log(JSON.stringify({ name: p.name, style, result: result.toString(), calls, keys, ms }));
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
