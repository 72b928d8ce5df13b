// bench.mjs runs a GGUF with llama.cpp (npm node-llama-cpp, its prebuilt CPU binary) the way
// `edgechat bench --compare` measures EdgeChat: a prompt of given token ids (or text), greedy
// decoding of N tokens, a fixed thread count; it prints one JSON object.
//
//   node bench.mjs --model m.gguf --prompt-ids 1,2,3 --tokens 64 --threads 2
import { readFileSync } from "node:fs";
import { getLlama, LlamaLogLevel } from "node-llama-cpp";

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith("--")) acc.push([a.slice(2), all[i + 1]]);
  return acc;
}, []));
if (!args.model) {
  console.error("usage: node bench.mjs --model FILE.gguf (--prompt-ids 1,2,3 | --prompt-len N) [--tokens 64] [--threads 2] [--repeat 3]");
  process.exit(2);
}
const threads = Number(args.threads ?? 2);
const tokens = Number(args.tokens ?? 64);
const repeat = Number(args.repeat ?? 3);

const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: args.model, gpuLayers: 0 });
let ids;
if (args["prompt-ids"]) {
  ids = args["prompt-ids"].split(",").map(Number);
} else {
  const n = Number(args["prompt-len"] ?? 428);
  const base = model.tokenize("The Hexagon NPU runs the transformer's matrix multiplications at low power, while the CPU handles the rest. ");
  ids = Array.from({ length: n }, (_, i) => base[i % base.length]);
}
const context = await model.createContext({ contextSize: ids.length + tokens + 16, threads, batchSize: Math.max(512, ids.length), sequences: 1 });

const runs = [];
for (let r = 0; r < repeat; r++) {
  const seq = context.getSequence();
  const out = [];
  const t0 = performance.now();
  let first = 0;
  for await (const tok of seq.evaluate(ids, { temperature: 0 })) {
    if (out.length === 0) first = performance.now();
    out.push(tok);
    if (out.length > tokens) break; // the first token comes from the prompt, then N decoded
  }
  const end = performance.now();
  runs.push({ ttft_ms: first - t0, decode_tokens_per_s: tokens / ((end - first) / 1000), ids: out.slice(0, tokens + 1) });
  seq.dispose();
}
// The best run of each figure: the others carry the noise of a shared machine.
const best = {
  engine: "llama.cpp (node-llama-cpp " + JSON.parse(readFileSync(new URL("./node_modules/node-llama-cpp/package.json", import.meta.url))).version + ")",
  model: args.model, threads, prompt_tokens: ids.length, decode_tokens: tokens, runs: runs.length,
  ttft_ms: Math.min(...runs.map((r) => r.ttft_ms)),
  decode_tokens_per_s: Math.max(...runs.map((r) => r.decode_tokens_per_s)),
  ids: runs[0].ids,
};
console.log(JSON.stringify(best));
await context.dispose();
await model.dispose();
