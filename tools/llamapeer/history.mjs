// history.mjs measures llama.cpp's decode cost (CPU time of this process, and wall time) after a short
// and a long history, alternating in one process on one context, so that the two figures share
// the same minutes of a loaded machine: the peer's long-history ratio (issue 35). llama.cpp's
// threads spin-wait for each other at every operator: on a machine with fewer free cores than
// threads, its figures measure that waiting (0.6 tokens/s at 2 threads under load 11 on 2
// cores); compare at --threads 1 there.
//
//   node ~/.cache/edgechat/llama/history.mjs --model m.gguf --threads 2 --short 100 --long 3000 --tokens 32 --rounds 3 [--flash-attention on]
import { getLlama, LlamaLogLevel } from "node-llama-cpp";
const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => { if (a.startsWith("--")) acc.push([a.slice(2), all[i + 1]]); return acc; }, []));
const threads = Number(args.threads ?? 2), tokens = Number(args.tokens ?? 32), rounds = Number(args.rounds ?? 3);
const lens = [Number(args.short ?? 100), Number(args.long ?? 3000)];
const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: args.model, gpuLayers: 0 });
const ctx = await model.createContext({ contextSize: lens[1] + tokens + 16, threads, batchSize: 512, sequences: 1, flashAttention: args["flash-attention"] === "on" });
const ids = (n) => Array.from({ length: n }, (_, i) => 100 + (i * 7919) % 5000);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const acc = lens.map(() => ({ cpu: 0, wall: 0, n: 0 }));
for (let r = 0; r <= rounds; r++) {
  for (let j = 0; j < lens.length; j++) {
    const k = (j + r) % lens.length;
    const seq = ctx.getSequence();
    let c0 = 0, w0 = 0, out = 0;
    for await (const tok of seq.evaluate(ids(lens[k]), { temperature: 0 })) {
      if (out === 0) { c0 = cpu(); w0 = performance.now(); }
      out++;
      if (out > tokens) break;
    }
    const c1 = cpu(), w1 = performance.now();
    if (r > 0) { acc[k].cpu += c1 - c0; acc[k].wall += w1 - w0; acc[k].n += tokens; }
    seq.dispose();
  }
}
for (let k = 0; k < lens.length; k++) {
  const a = acc[k];
  console.log(`history ${lens[k]}: decode cpu ${(a.cpu / a.n).toFixed(2)} ms/token, wall ${(a.wall / a.n).toFixed(2)} ms/token (${(1000 * a.n / a.wall).toFixed(1)} tokens/s)`);
}
console.log(`long/short speed ratio: cpu ${(acc[0].cpu / acc[0].n / (acc[1].cpu / acc[1].n)).toFixed(3)}, wall ${(acc[0].wall / acc[0].n / (acc[1].wall / acc[1].n)).toFixed(3)}`);
await ctx.dispose(); await model.dispose();
