package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"edgechat/internal/paths"
	"edgechat/internal/testkit/fakehub"
	"edgechat/internal/testkit/synth"
)

const (
	testRepo   = "test-org/Tiny-ONNX"
	testCommit = "0123456789abcdef0123456789abcdef01234567"
)

// modelDir holds the generated model every test serves (written once by TestMain).
var modelDir string

func TestMain(m *testing.M) {
	if os.Getenv("HUB_TEST_PULLER") != "" {
		os.Exit(helperPull())
	}
	dir, err := os.MkdirTemp("", "hubtest")
	if err != nil {
		panic(err)
	}
	modelDir = filepath.Join(dir, "model")
	o := synth.Tiny()
	o.Vocab = 16384 // 4 MB of embeddings per variant: big enough to cut mid-file
	o.TokenizerDir = paths.TokenizerDir("qwen3")
	if _, err := os.Stat(filepath.Join(o.TokenizerDir, "tokenizer.json")); err != nil {
		fmt.Fprintln(os.Stderr, "the Qwen3 tokenizer files are missing: run tools/setup.sh --no-apt")
		os.Exit(1)
	}
	if err := fakehub.WriteModel(modelDir, o); err != nil {
		fmt.Fprintln(os.Stderr, "write model:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// helperPull is the puller process of TestResumeAcrossProcesses: it pulls and prints the result.
func helperPull() int {
	c := NewClient("")
	res, err := c.Pull(context.Background(), Request{Ref: testRepo, Variant: os.Getenv("HUB_TEST_VARIANT"), ModelsDir: os.Getenv("HUB_TEST_DIR")}, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_ = json.NewEncoder(os.Stdout).Encode(res)
	return 0
}

// serve starts a fake hub with the test model and points HF_ENDPOINT at it.
func serve(t *testing.T) *fakehub.Server {
	t.Helper()
	repo, err := fakehub.RepoFromDir(testRepo, testCommit, modelDir)
	if err != nil {
		t.Fatal(err)
	}
	s := fakehub.Start(repo)
	t.Cleanup(s.Close)
	t.Setenv("HF_ENDPOINT", s.URL)
	t.Setenv("HF_TOKEN", "")
	return s
}

// size is the bytes of the model's files that a pull of variant fetches.
func size(t *testing.T, files ...string) int64 {
	t.Helper()
	var n int64
	for _, f := range files {
		st, err := os.Stat(filepath.Join(modelDir, f))
		if err != nil {
			t.Fatal(err)
		}
		n += st.Size()
	}
	return n
}

var q4Files = []string{"config.json", "generation_config.json", "onnx/model_q4.onnx", "tokenizer.json", "tokenizer_config.json"}

// fastOptions make retries quick for tests. The stall timeout stays at a second: under -race
// on a loaded machine a shorter one fired mid-transfer and the bytes in flight were sent twice.
func fastOptions() Options {
	return Options{Stall: time.Second, Backoff: 10e6, Retries: 3, LockPoll: 20e6}
}
