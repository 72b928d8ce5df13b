package routes

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"edgechat/config"
	"edgechat/inference"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
)

func tinyModel(t *testing.T) string {
	t.Helper()
	o := synth.Tiny()
	o.TokenizerDir = testenv.TokenizerDir(t, "qwen3")
	d := filepath.Join(t.TempDir(), "tiny")
	if err := synth.Write(d, o); err != nil {
		t.Fatal(err)
	}
	return d
}

// Test asks the running engine's route when the pane shows what it serves — the model is
// loaded once, by its route, and a second Test finds it loaded — and a one-off engine for
// unsaved settings.
func TestTesterUsesTheRunningRoute(t *testing.T) {
	saved := config.Defaults()
	saved.ORTLibrary = testenv.ORTLibrary(t)
	saved.CPU.Model = tinyModel(t)
	eng, err := inference.New(Build(FromSettings(saved)))
	if err != nil {
		t.Fatal(err)
	}
	sw := NewSwitch(eng)
	defer sw.Close()
	tester := Tester{Engine: sw, Saved: func() config.Settings { return saved }}
	ctx := context.Background()

	first, err := tester.Test(ctx, saved.CPU, saved.ORTLibrary)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(first, "Loaded in") || !strings.Contains(first, "layout A") || !strings.Contains(first, "on CPU") {
		t.Errorf("first test:\n%s", first)
	}
	again, err := tester.Test(ctx, saved.CPU, saved.ORTLibrary)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(again, "already in use") {
		t.Errorf("second test of the running route loaded again:\n%s", again)
	}

	unsaved := saved.CPU
	unsaved.Model = tinyModel(t)
	other, err := tester.Test(ctx, unsaved, saved.ORTLibrary)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(other, "Loaded in") {
		t.Errorf("unsaved route was not loaded on its own:\n%s", other)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := tester.Test(cancelled, unsaved, saved.ORTLibrary); err == nil {
		t.Error("a cancelled test succeeded")
	}
}
