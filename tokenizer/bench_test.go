package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/internal/testkit/testenv"
)

// Figures to compare with testdata/reference_speed.json (written by tools/tokref/golden.js on
// the same bench text, single-threaded; MB/cpu-s there is mb_per_cpu_s):
//
//	go test -run='^$' -bench=. -benchtime=3x ./tokenizer

func benchText(b *testing.B) string { return readText(b, "bench.txt.gz") }

// readText reads a gzipped text from testdata.
func readText(b *testing.B, name string) string {
	return string(testenv.Gunzip(b, filepath.Join("testdata", name)))
}

// BenchmarkEncode encodes the ~1 MB mixed bench text as user content.
func BenchmarkEncode(b *testing.B) {
	text := benchText(b)
	for _, name := range tokenizerNames {
		b.Run(name, func(b *testing.B) {
			tk := load(b, name)
			b.SetBytes(int64(len(text)))
			cpu := cpuSeconds()
			for b.Loop() {
				tk.Encode(text)
			}
			reportCPU(b, cpu, len(text))
		})
	}
}

// realTimed are the real files timed against the reference (real_NAME in
// testdata/reference_speed.json): WordPiece, Unigram with its charsmap, GPT-2's byte-level BPE.
var realTimed = []string{"bert", "t5", "gpt2"}

// BenchmarkEncodeReal encodes the ~1 MB bench text as user content with the timed real files.
func BenchmarkEncodeReal(b *testing.B) {
	text := benchText(b)
	for _, name := range realTimed {
		b.Run(name, func(b *testing.B) {
			tk := load(b, "real_"+name)
			b.SetBytes(int64(len(text)))
			cpu := cpuSeconds()
			for b.Loop() {
				tk.Encode(text)
			}
			reportCPU(b, cpu, len(text))
		})
	}
}

// BenchmarkLoadReal parses the timed real files (already in memory).
func BenchmarkLoadReal(b *testing.B) {
	for _, name := range realTimed {
		b.Run(name, func(b *testing.B) {
			data := readReal(b, name)
			cpu := cpuSeconds()
			for b.Loop() {
				if _, err := parse(data); err != nil {
					b.Fatal(err)
				}
			}
			if used := cpuSeconds() - cpu; cpu > 0 {
				b.ReportMetric(used*1e3/float64(b.N), "cpu-ms/op")
			}
		})
	}
}

// reportCPU adds MB per CPU second, which a busy machine disturbs less than wall time.
func reportCPU(b *testing.B, start float64, size int) {
	if cpu := cpuSeconds() - start; start > 0 && cpu > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/1e6/cpu, "MB/cpu-s")
	}
}

// BenchmarkEncode4k encodes a Qwen3 chat prompt of about 4,000 tokens.
func BenchmarkEncode4k(b *testing.B) {
	tk := load(b, "qwen3")
	text := benchText(b)
	n := 0
	for ids := 0; ids < 4000; {
		n += 4000
		ids = len(tk.Encode(text[:n]))
	}
	prompt := "<|im_start|>user\n" + text[:n] + "<|im_end|>\n<|im_start|>assistant\n"
	var ids []int
	for b.Loop() {
		ids = tk.EncodeSpecial(prompt)
	}
	b.ReportMetric(float64(len(ids)), "tokens")
}

// BenchmarkLoad reads each tokenizer.json; cpu-ms/op is the process's CPU time per load (all
// threads, the garbage collector's included), which a busy machine disturbs less than wall time.
func BenchmarkLoad(b *testing.B) {
	for _, name := range tokenizerNames {
		b.Run(name, func(b *testing.B) {
			dir := testenv.TokenizerDir(b, name)
			cpu := cpuSeconds()
			for b.Loop() {
				if _, err := Load(dir); err != nil {
					b.Fatal(err)
				}
			}
			if used := cpuSeconds() - cpu; cpu > 0 {
				b.ReportMetric(used*1e3/float64(b.N), "cpu-ms/op")
			}
		})
	}
}

// BenchmarkEncodeNoSpace encodes a ~100 KB paragraph without spaces as user content: for the
// SentencePiece-style files it is one BPE word, which must not take quadratic time (compare
// nospace in testdata/reference_speed.json).
func BenchmarkEncodeNoSpace(b *testing.B) {
	text := readText(b, "bench_nospace.txt.gz")
	for _, name := range tokenizerNames {
		b.Run(name, func(b *testing.B) {
			tk := load(b, name)
			b.SetBytes(int64(len(text)))
			cpu := cpuSeconds()
			for b.Loop() {
				tk.Encode(text)
			}
			reportCPU(b, cpu, len(text))
		})
	}
}

// refSpeed is one tokenizer's entry in testdata/reference_speed.json.
type refSpeed struct {
	LoadMS float64 `json:"load_ms"`
	Encode struct {
		Whole struct {
			MBPerCPUS float64 `json:"mb_per_cpu_s"`
		} `json:"whole"`
	} `json:"encode"`
}

// BenchmarkLoadEncode loads each tokenizer the reference was timed on (from its folder, file
// read included) and encodes the ~1 MB bench text, the figure issue 31 holds at ≥ 5× the
// reference: cpu-s/op is this process's CPU time per load + encode, x-ref the reference's load
// time plus its CPU time to encode the same text, divided by that; faults/op the minor page
// faults per load + encode (fresh memory pages, costly on a virtual machine).
func BenchmarkLoadEncode(b *testing.B) {
	text := benchText(b)
	var ref map[string]json.RawMessage
	data, err := os.ReadFile(filepath.Join("testdata", "reference_speed.json"))
	if err == nil {
		err = json.Unmarshal(data, &ref)
	}
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range append(tokenizerNames, prefixed("real_", realTimed)...) {
		var r refSpeed
		if json.Unmarshal(ref[name], &r) != nil || r.LoadMS == 0 || r.Encode.Whole.MBPerCPUS == 0 {
			continue
		}
		refSeconds := r.LoadMS/1e3 + float64(len(text))/1e6/r.Encode.Whole.MBPerCPUS
		b.Run(name, func(b *testing.B) {
			dir := benchDir(b, name)
			cpu, faults := cpuSeconds(), minorFaults()
			for b.Loop() {
				tk, err := Load(dir)
				if err != nil {
					b.Fatal(err)
				}
				tk.Encode(text)
			}
			if used := (cpuSeconds() - cpu) / float64(b.N); cpu > 0 && used > 0 {
				b.ReportMetric(used, "cpu-s/op")
				b.ReportMetric(refSeconds/used, "x-ref")
				b.ReportMetric((minorFaults()-faults)/float64(b.N), "faults/op")
			}
		})
	}
}

// benchDir is the folder of an installed tokenizer, or for a real file kept in testdata/real a
// temporary folder it is written to.
func benchDir(b *testing.B, name string) string {
	real, ok := strings.CutPrefix(name, "real_")
	if !ok {
		return testenv.TokenizerDir(b, name)
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), readReal(b, real), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}
