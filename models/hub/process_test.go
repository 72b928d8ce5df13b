package hub

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"edgechat/internal/testkit/fakehub"
	"edgechat/models"
)

// TestResumeAcrossProcesses kills a puller process (SIGKILL) in the middle of a file and runs
// another: it continues the file, so the bytes sent stay under 1.2× the model's size.
func TestResumeAcrossProcesses(t *testing.T) {
	s := serve(t)
	file := "onnx/model_q4.onnx"
	s.AddFault(fakehub.Fault{Kind: fakehub.Slow, File: file, Rate: 4 << 20, Times: 1})
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	puller := func() *exec.Cmd {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "HUB_TEST_PULLER=1", "HUB_TEST_DIR="+dir)
		return cmd
	}
	first := puller()
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(dir, "test-org--Tiny-ONNX", ".partial-"+testCommit, "onnx", "model_q4.onnx.incomplete")
	deadline := time.Now().Add(20 * time.Second)
	for {
		if st, err := os.Stat(part); err == nil && st.Size() > size(t, file)/3 {
			break
		}
		if time.Now().After(deadline) {
			first.Process.Kill()
			t.Fatal("the first puller never got a third into the file")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	killedAt, _ := os.Stat(part)

	second := puller()
	out, err := second.Output()
	if err != nil {
		t.Fatalf("second puller: %v\n%s", err, out)
	}
	var res Result
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("second puller printed %q: %v", out, err)
	}
	total := size(t, q4Files...)
	t.Logf("killed at %d bytes of %s; the server sent %d bytes for a %d-byte model (%.3f×)", killedAt.Size(), file, s.BytesSent.Load(), total, float64(s.BytesSent.Load())/float64(total))
	if float64(s.BytesSent.Load()) >= 1.2*float64(total) {
		t.Errorf("sent %d bytes in all, want under 1.2 × %d", s.BytesSent.Load(), total)
	}
	if s.Ranged.Load() == 0 {
		t.Error("the second puller did not resume with Range")
	}
	if _, err := models.Open(res.Path, ""); err != nil {
		t.Fatal(err)
	}
}

// TestTwoProcesses: two puller processes of the same model at once: one waits for the other's
// lock, then finds the files in place; the model is sent once.
func TestTwoProcesses(t *testing.T) {
	s := serve(t)
	s.AddFault(fakehub.Fault{Kind: fakehub.Slow, File: "onnx/model_q4.onnx", Rate: 16 << 20})
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for range 2 {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "HUB_TEST_PULLER=1", "HUB_TEST_DIR="+dir)
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	var paths []string
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("puller %d: %v\n%s", i, err, outs[i])
		}
		var res Result
		if err := json.Unmarshal([]byte(outs[i].String()), &res); err != nil {
			t.Fatalf("puller %d printed %q", i, outs[i])
		}
		paths = append(paths, res.Path)
	}
	if paths[0] != paths[1] {
		t.Errorf("paths differ: %v", paths)
	}
	if total := size(t, q4Files...); s.BytesSent.Load() != total {
		t.Errorf("the server sent %d bytes for a %d-byte model: the pullers did not share the work", s.BytesSent.Load(), total)
	}
	if _, err := models.Open(paths[0], ""); err != nil {
		t.Fatal(err)
	}
}
