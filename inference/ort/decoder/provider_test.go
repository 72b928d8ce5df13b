package decoder

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"edgechat/inference"
)

// A route's "session.*" options become ONNX Runtime session settings and nothing else does:
// checked on the options ONNX Runtime holds, not on a run that would accept any key.
func TestSessionOptionsPassThrough(t *testing.T) {
	initORT(t)
	opts, err := newSessionOptions(inference.EP{Name: "cpu", Threads: 1, Options: map[string]string{
		"session.disable_prepacking": "1", "session.intra_op.allow_spinning": "0", "device_id": "0",
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer opts.Destroy()
	got := map[string]bool{}
	for _, k := range []string{"session.disable_prepacking", "session.intra_op.allow_spinning", "device_id", "session.use_env_allocators"} {
		if got[k], err = opts.HasSessionConfigEntry(k); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]bool{"session.disable_prepacking": true, "session.intra_op.allow_spinning": true, "device_id": false, "session.use_env_allocators": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("session config entries set (-want +got):\n%s", diff)
	}
}

// Providers come from the eps table: an unknown name says which exist, and one the library
// lacks is an EPError carrying ONNX Runtime's sentence.
func TestAppendProvider(t *testing.T) {
	initORT(t)
	for _, tc := range []struct{ ep, want string }{
		{"cuda", "unknown execution provider \"cuda\": choose one of cpu, qnn, dml, webgpu"},
		{"qnn", "QNN execution provider is not supported in this build"},
	} {
		_, err := newSessionOptions(inference.EP{Name: tc.ep})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.ep, err, tc.want)
		}
		var epErr *EPError
		if tc.ep == "qnn" && (!errors.As(err, &epErr) || epErr.EP != "QNN") {
			t.Errorf("%s: %T is not an EPError for QNN", tc.ep, err)
		}
	}
}

// Sessions stop spinning when a run ends whatever the route says of spinning; a route's own
// spinning choice wins over the busy-machine probe.
func TestSpinningDefaults(t *testing.T) {
	got := withSessionDefaults(nil)
	if got[spinStopKey] != "1" || (got[spinKey] != "0" && got[spinKey] != "1") {
		t.Errorf("defaults %v", got)
	}
	got = withSessionDefaults(map[string]string{spinKey: "0", "session.disable_prepacking": "1"})
	want := map[string]string{spinKey: "0", spinStopKey: "1", "session.disable_prepacking": "1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("with the route's choice (-want +got):\n%s", diff)
	}
	// What a benchmark's peer session gets: the same, without the provider's options.
	got = SessionConfig(map[string]string{spinKey: "0", "backend_path": "QnnHtp.dll"})
	want = map[string]string{spinKey: "0", spinStopKey: "1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("session config (-want +got):\n%s", diff)
	}
}
