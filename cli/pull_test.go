package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/internal/testkit/fakehub"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/models/discover"
	"edgechat/models/hub"
)

// isolate points HOME, the Hugging Face variables and the settings at empty folders.
func isolate(t *testing.T) string {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "HF_HOME", "HF_HUB_CACHE", "HF_TOKEN"} {
		t.Setenv(v, "")
	}
	return home
}

// TestPullThenGenerate: pull from a fake hub, find the model with `models`, and generate with it.
func TestPullThenGenerate(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	o := synth.Tiny()
	o.TokenizerDir = testenv.TokenizerDir(t, "qwen3")
	home := isolate(t) // after finding the test data under the real home
	src := filepath.Join(t.TempDir(), "src")
	if err := fakehub.WriteModel(src, o); err != nil {
		t.Fatal(err)
	}
	repo, err := fakehub.RepoFromDir("test-org/Tiny-ONNX", "0123456789abcdef0123456789abcdef01234567", src)
	if err != nil {
		t.Fatal(err)
	}
	s := fakehub.Start(repo)
	defer s.Close()
	t.Setenv("HF_ENDPOINT", s.URL)
	cfg := filepath.Join(home, "settings.yaml")
	modelsDir := filepath.Join(home, "models")

	var out, errb bytes.Buffer
	if code := Run([]string{"pull", "test-org/Tiny-ONNX", "--json", "--models-dir", modelsDir, "--config", cfg}, nil, &out, &errb); code != 0 {
		t.Fatalf("pull: exit %d: %s", code, errb.String())
	}
	var lines []string
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) < 3 {
		t.Fatalf("pull printed %d lines, want progress and a result: %q", len(lines), lines)
	}
	var p struct {
		State string `json:"state"`
		Total int64  `json:"total"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &p); err != nil || p.State == "" {
		t.Errorf("first line %q is not a progress object (%v)", lines[0], err)
	}
	var res hub.Result
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil || res.Path == "" || res.Commit == "" || len(res.Files) == 0 {
		t.Fatalf("last line %q is not the result (%v)", lines[len(lines)-1], err)
	}

	out.Reset()
	if code := Run([]string{"models", "--json", "--models-dir", modelsDir, "--config", cfg}, nil, &out, &errb); code != 0 {
		t.Fatalf("models: exit %d: %s", code, errb.String())
	}
	var found []discover.Model
	if err := json.Unmarshal(out.Bytes(), &found); err != nil {
		t.Fatalf("models --json: %v\n%s", err, out.String())
	}
	if len(found) != 1 || found[0].Path != res.Path || found[0].Source != discover.SourceEdgeChat || found[0].Name != "test-org/Tiny-ONNX" || found[0].Layout != "A" || found[0].Device != "cpu" || found[0].SizeBytes != res.Bytes {
		t.Errorf("models found %+v, want the pulled folder (%s, %d bytes)", found, res.Path, res.Bytes)
	}

	out.Reset()
	if code := Run([]string{"generate", "--model", res.Path, "--ort-lib", lib, "--prompt", "Hi", "--temperature", "0", "--max-tokens", "8"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("generate on the pulled model: exit %d: %s", code, errb.String())
	}
	if strings.TrimSpace(out.String()) == "" {
		t.Error("generate printed nothing")
	}
}

func TestPullErrors(t *testing.T) {
	isolate(t)
	// A hostile mirror: its commit id would climb out of the models folder.
	s := fakehub.Start(&fakehub.Repo{Name: "org/hostile", Commit: "0123456789abcdef0123456789abcdef01234567", RevisionSHA: "../../../x"})
	defer s.Close()
	t.Setenv("HF_ENDPOINT", s.URL)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"pull"}, 2, "usage: edgechat pull"},
		{[]string{"pull", "not a name"}, 1, "is not a model name"},
		{[]string{"pull", "org/missing", "--models-dir", t.TempDir()}, 1, "no model named org/missing"},
		{[]string{"pull", "a/b", "c/d"}, 2, "usage"},
		{[]string{"pull", "org/name.", "--models-dir", t.TempDir()}, 1, "is not a model name"},
		{[]string{"pull", "org/hostile", "--models-dir", filepath.Join(t.TempDir(), "a", "b", "models")}, 1, s.URL + ` gave "../../../x" as the commit of org/hostile@main, which is not a commit id`},
	} {
		var out, errb bytes.Buffer
		code := Run(tc.args, nil, &out, &errb)
		if code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), tc.code, tc.want)
		}
	}
}

func TestModelsEmpty(t *testing.T) {
	home := isolate(t)
	var out, errb bytes.Buffer
	if code := Run([]string{"models", "--models-dir", filepath.Join(home, "m"), "--config", filepath.Join(home, "s.yaml")}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "edgechat pull") {
		t.Errorf("empty list says %q, want how to download one", out.String())
	}
}
