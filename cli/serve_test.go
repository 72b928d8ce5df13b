package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"edgechat/internal/testkit/testenv"
)

func TestServe(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	model := writeTinyModel(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrc, errc := make(chan string, 1), make(chan error, 1)
	var stderr bytes.Buffer
	env := Env{Args: []string{"--model", model, "--ort-lib", lib, "--addr", "127.0.0.1:0", "--api-key", "k"}, Stdout: &bytes.Buffer{}, Stderr: &stderr}
	go func() { errc <- serve(ctx, env, func(addr string) { addrc <- addr }) }()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-errc:
		t.Fatalf("serve: %v\n%s", err, stderr.String())
	case <-time.After(time.Minute):
		t.Fatal("serve did not start")
	}

	body := `{"model":"m","messages":[{"role":"user","content":"Hi"}],"stream":true,"stream_options":{"include_usage":true},"temperature":0,"max_tokens":8}`
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var data []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			data = append(data, d)
		}
	}
	if len(data) < 3 || data[len(data)-1] != "[DONE]" {
		t.Fatalf("stream %q", data)
	}
	var last struct {
		Model string `json:"model"`
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
		XEdgeChat struct {
			Backend string `json:"backend"`
		} `json:"x_edgechat"`
	}
	if err := json.Unmarshal([]byte(data[len(data)-2]), &last); err != nil {
		t.Fatal(err)
	}
	if last.Model != "m" || last.Usage.CompletionTokens == 0 || last.XEdgeChat.Backend != "cpu" {
		t.Errorf("last chunk %s", data[len(data)-2])
	}

	cancel() // as Ctrl+C does
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(stderr.String(), "serving m at http://"+addr+"/v1") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

func TestServeFlags(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"serve"}, 1, "--model is required"},
		{[]string{"serve", "--bogus"}, 2, "flag provided but not defined"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		if code := Run(c.args, strings.NewReader(""), &out, &errb); code != c.code || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errb.String(), c.code, c.want)
		}
	}
}

func TestModelName(t *testing.T) {
	for in, want := range map[string]string{
		"/m/qwen3-0.6b":                 "qwen3-0.6b",
		"/m/qwen3-0.6b/":                "qwen3-0.6b",
		"/m/qwen3-0.6b/onnx/model.onnx": "qwen3-0.6b",
		"/m/qwen3/model_q4.onnx":        "qwen3",
		"/m/onnx-community--Qwen3-0.6B-ONNX/0123456789abcdef0123456789abcdef01234567":                    "onnx-community/Qwen3-0.6B-ONNX",
		"/m/onnx-community--Qwen3-0.6B-ONNX/0123456789abcdef0123456789abcdef01234567/onnx/model_q4.onnx": "onnx-community/Qwen3-0.6B-ONNX",
		"/hf/hub/models--Qwen--Qwen3-Embedding-0.6B/snapshots/0123456789abcdef0123456789abcdef01234567":  "Qwen/Qwen3-Embedding-0.6B",
		"/m/deadbeef1234": "deadbeef1234",
		"/m/cafe":         "cafe",
	} {
		if got := modelName(in); got != want {
			t.Errorf("modelName(%q) = %q, want %q", in, got, want)
		}
	}
}
