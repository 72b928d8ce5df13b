package discover

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/internal/filecopy"
	"edgechat/internal/paths"
	"edgechat/internal/testkit/synth"
)

// base holds one generated model per layout (written once by TestMain); fake trees link to
// their files.
var base = map[string]string{}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "discovertest")
	if err != nil {
		panic(err)
	}
	tok := paths.TokenizerDir("qwen3")
	if _, err := os.Stat(filepath.Join(tok, "tokenizer.json")); err != nil {
		fmt.Fprintln(os.Stderr, "the Qwen3 tokenizer files are missing: run tools/setup.sh --no-apt")
		os.Exit(1)
	}
	for name, layout := range map[string]synth.Layout{"A": synth.LayoutHF, "B": synth.LayoutGenAI, "C": synth.LayoutStatic, "D": synth.LayoutBundle, "A-ext": synth.LayoutHF, "E": synth.LayoutEmbedding} {
		o := synth.Tiny()
		o.Vocab, o.Layout, o.TokenizerDir = 512, layout, tok
		o.ExternalData = name == "A-ext"
		if layout == synth.LayoutBundle {
			o.KVFloat16 = true
		}
		base[name] = filepath.Join(dir, name)
		if err := synth.Write(base[name], o); err != nil {
			fmt.Fprintln(os.Stderr, "write model:", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// place links (or copies) the files of base model name into dir, leaving out skip.
func place(t testing.TB, name, dir string, skip ...string) {
	t.Helper()
	src := base[name]
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		for _, s := range skip {
			if filepath.ToSlash(rel) == s {
				return nil
			}
		}
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return filecopy.LinkOrCopy(p, dst)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// hfRepo writes models--ORG--NAME in the hub cache with model name at snapshot sha (under
// sub, if set): files as relative symlinks into blobs/, or real files when plain.
func hfRepo(t testing.TB, cache, repo, name, sub string, plain bool, skip ...string) string {
	t.Helper()
	repoDir := filepath.Join(cache, "models--"+strings.ReplaceAll(repo, "/", "--"))
	sha := fmt.Sprintf("%040x", len(repo)*7919)
	snap := filepath.Join(repoDir, "snapshots", sha)
	if err := os.MkdirAll(filepath.Join(repoDir, "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repoDir, "refs", "main"), []byte(sha), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(snap, sub)
	place(t, name, dst, skip...)
	if plain {
		return dst
	}
	blobs := filepath.Join(repoDir, "blobs")
	_ = os.MkdirAll(blobs, 0o755)
	err := filepath.WalkDir(snap, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h := sha256.Sum256(b)
		blob := filepath.Join(blobs, hex.EncodeToString(h[:]))
		if err := os.Rename(p, blob); err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Dir(p), blob)
		return os.Symlink(rel, p)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func write(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// found is the part of a Model the tree test compares.
type found struct {
	Source       Source
	Name         string
	Layout       string
	Device       string
	Quantization string
}

func TestScanEverySource(t *testing.T) {
	home := t.TempDir()
	cache := filepath.Join(home, ".cache", "huggingface", "hub")
	hfRepo(t, cache, "onnx-community/Tiny-ONNX", "A", "", false)
	hfRepo(t, cache, "org/Plain-Files", "A-ext", "", true)
	hfRepo(t, cache, "microsoft/Tiny-genai", "B", "cpu_and_mobile/cpu-int4", false)
	hfRepo(t, cache, "org/Missing-Data", "A-ext", "", false, "onnx/model.onnx_data")
	busy := hfRepo(t, cache, "org/Downloading", "A", "", false)
	write(t, filepath.Join(filepath.Dir(filepath.Dir(busy)), "blobs", "abc.incomplete"), "")
	broken := hfRepo(t, cache, "org/Broken-Link", "A", "", false)
	blob, _ := filepath.EvalSymlinks(filepath.Join(broken, "tokenizer.json"))
	os.Remove(blob)

	foundry := filepath.Join(home, ".foundry", "cache", "models", "Microsoft")
	place(t, "B", filepath.Join(foundry, "qwen2.5-0.5b-instruct-generic-cpu-4", "v4"))
	write(t, filepath.Join(foundry, "qwen2.5-0.5b-instruct-generic-cpu-4", "v4", "inference_model.json"), `{"Name": "qwen2.5-0.5b-instruct-generic-cpu:4", "PromptTemplate": null}`)
	place(t, "D", filepath.Join(foundry, "qwen2.5-0.5b-instruct-qnn-npu-1", "v1"))
	write(t, filepath.Join(foundry, "qwen2.5-0.5b-instruct-qnn-npu-1", "v1", "inference_model.json"), `{"Name": "qwen2.5-0.5b-instruct-qnn-npu:1"}`)
	place(t, "B", filepath.Join(foundry, "Phi-3.5-mini-instruct-generic-cpu", "cpu-int4-rtn-block-32-acc-level-4"))
	place(t, "B", filepath.Join(foundry, "phi-4-generic-cpu-1", "v1"))
	write(t, filepath.Join(foundry, "phi-4-generic-cpu-1", "v1", "download.tmp"), "")
	place(t, "B", filepath.Join(foundry, "phi-4-mini-generic-cpu-1", "v1"), "model.onnx")

	aitk := filepath.Join(home, ".aitk", "models", "Microsoft")
	place(t, "D", filepath.Join(aitk, "qwen-npu-2", "v2"))
	place(t, "B", filepath.Join(aitk, "mistral-cpu-1", "v1"))
	write(t, filepath.Join(aitk, "mistral-cpu-1", "v1", "model.onnx.dlstate"), "")

	place(t, "A", filepath.Join(home, ".cache", "aigallery", "onnx-community--Gallery-ONNX", "main"))
	place(t, "A", filepath.Join(home, ".cache", "aigallery", "org--Partial", "main"))
	write(t, filepath.Join(home, ".cache", "aigallery", "org--Partial", "main", "onnx", "model.onnx.part"), "")

	models := filepath.Join(home, "EdgeChat", "models")
	mine := filepath.Join(models, "onnx-community--Qwen3-Tiny", "0123456789abcdef0123456789abcdef01234567")
	place(t, "A", mine)
	place(t, "A", filepath.Join(models, "onnx-community--Qwen3-Tiny", ".partial-fedcba9876543210fedcba9876543210fedcba98"))

	// The folder earlier versions downloaded into: its models are found where they are.
	earlier := filepath.Join(home, ".config", "EdgeChat", "models")
	place(t, "A", filepath.Join(earlier, "onnx-community--Old-ONNX", "89abcdef0123456789abcdef0123456789abcdef"))

	user1 := filepath.Join(home, "npu-build")
	place(t, "C", user1)
	user2 := filepath.Join(home, "my-models")
	place(t, "A", filepath.Join(user2, "nested", "qwen"))
	place(t, "A", filepath.Join(user2, "no-tokenizer"), "tokenizer.json")

	res := Scan(Roots{Home: home, EdgeChat: models, Earlier: []string{earlier}, User: []string{user1, user2, mine}})
	var got []found
	for _, m := range res.Models {
		got = append(got, found{m.Source, m.Name, m.Layout, m.Device, m.Quantization})
		if m.SizeBytes <= 0 || !filepath.IsAbs(m.Path) {
			t.Errorf("%s: size %d, path %s", m.Name, m.SizeBytes, m.Path)
		}
	}
	want := []found{
		{SourceEdgeChat, "onnx-community/Old-ONNX", "A", "cpu", "fp32"},
		{SourceEdgeChat, "onnx-community/Qwen3-Tiny", "A", "cpu", "fp32"},
		{SourceUser, "nested/qwen", "A", "cpu", "fp32"},
		{SourceUser, "npu-build", "C", "npu", "fp32"},
		{SourceHFCache, "microsoft/Tiny-genai (cpu_and_mobile/cpu-int4)", "B", "cpu", "fp32"},
		{SourceHFCache, "onnx-community/Tiny-ONNX", "A", "cpu", "fp32"},
		{SourceHFCache, "org/Plain-Files", "A", "cpu", "fp32"},
		{SourceFoundry, "Microsoft/Phi-3.5-mini-instruct-generic-cpu/cpu-int4-rtn-block-32-acc-level-4", "B", "cpu", "fp32"},
		{SourceFoundry, "qwen2.5-0.5b-instruct-generic-cpu:4", "B", "cpu", "fp32"},
		{SourceFoundry, "qwen2.5-0.5b-instruct-qnn-npu:1", "D", "npu", "fp32"},
		{SourceAIToolkit, "Microsoft/qwen-npu-2/v2", "D", "npu", "fp32"},
		{SourceGallery, "onnx-community/Gallery-ONNX", "A", "cpu", "fp32"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
	skipped := map[string]string{}
	for _, s := range res.Skipped {
		rel, _ := filepath.Rel(home, s.Path)
		skipped[filepath.ToSlash(rel)] = s.Reason
	}
	for dir, reason := range map[string]string{
		".cache/huggingface/hub/models--org--Downloading":                                                                  "unfinished download",
		".cache/huggingface/hub/models--org--Missing-Data/snapshots/" + fmt.Sprintf("%040x", len("org/Missing-Data")*7919): "model.onnx_data, which is missing",
		".cache/huggingface/hub/models--org--Broken-Link/snapshots/" + fmt.Sprintf("%040x", len("org/Broken-Link")*7919):   "tokenizer.json not found",
		".foundry/cache/models/Microsoft/phi-4-generic-cpu-1/v1":                                                           "download.tmp",
		".foundry/cache/models/Microsoft/phi-4-mini-generic-cpu-1/v1":                                                      "model.onnx, which is not in",
		".aitk/models/Microsoft/mistral-cpu-1/v1":                                                                          "model.onnx.dlstate",
		".cache/aigallery/org--Partial/main":                                                                               "model.onnx.part",
	} {
		if !strings.Contains(skipped[dir], reason) {
			t.Errorf("%s: skipped for %q, want a reason with %q", dir, skipped[dir], reason)
		}
	}
	if len(res.Skipped) != 7 { // a folder without tokenizer.json is not taken for a model at all
		t.Errorf("skipped %d folders, want 7: %+v", len(res.Skipped), res.Skipped)
	}
}

func TestHFCacheOrder(t *testing.T) {
	for _, tc := range []struct {
		r    Roots
		want string
	}{
		{Roots{Home: "/h", HFHubCache: "/x", HFHome: "/y", XDGCacheHome: "/z"}, "/x"},
		{Roots{Home: "/h", HFHome: "/y", XDGCacheHome: "/z"}, "/y/hub"},
		{Roots{Home: "/h", XDGCacheHome: "/z"}, "/z/huggingface/hub"},
		{Roots{Home: "/h"}, "/h/.cache/huggingface/hub"},
	} {
		if got := filepath.ToSlash(tc.r.HFCache()); got != tc.want {
			t.Errorf("%+v: HFCache() = %s, want %s", tc.r, got, tc.want)
		}
	}
}

func TestSizeCountsOneVariant(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	place(t, "A", dir)
	one := Scan(Roots{User: []string{dir}}).Models[0].SizeBytes
	// A second, unused variant in onnx/ does not count.
	if err := filecopy.LinkOrCopy(filepath.Join(dir, "onnx", "model.onnx"), filepath.Join(dir, "onnx", "model_fp16.onnx")); err != nil {
		t.Fatal(err)
	}
	res := Scan(Roots{User: []string{dir}})
	if got := res.Models[0]; got.SizeBytes != one || len(got.Variants) != 2 {
		t.Errorf("with two variants: size %d (want %d), variants %v", got.SizeBytes, one, got.Variants)
	}
}

// BenchmarkScan200 scans 200 model folders: 100 in the hub cache (symlinks into blobs), 100
// in a user folder.
func BenchmarkScan200(b *testing.B) {
	home := b.TempDir()
	cache := filepath.Join(home, ".cache", "huggingface", "hub")
	layouts := []string{"A", "B", "C", "D"}
	for i := range 100 {
		hfRepo(b, cache, fmt.Sprintf("org/model-%03d", i), layouts[i%4], "", false)
		place(b, layouts[i%4], filepath.Join(home, "mine", fmt.Sprintf("m%03d", i)))
	}
	r := Roots{Home: home, User: []string{filepath.Join(home, "mine")}}
	if n := len(Scan(r).Models); n != 200 {
		b.Fatalf("found %d models, want 200", n)
	}
	for b.Loop() {
		Scan(r)
	}
}
