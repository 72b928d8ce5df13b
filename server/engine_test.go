package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"edgechat/reply"

	"github.com/google/go-cmp/cmp"

	"edgechat/inference"
	"edgechat/inference/ort/decoder"
	"edgechat/inference/remote"
	"edgechat/internal/testkit/synth"
	"edgechat/internal/testkit/testenv"
	"edgechat/server"
)

// tinyEngine is the real engine on a tiny synthetic Qwen3 model.
// threads is its CPU thread count (0: physical cores).
func tinyEngine(tb testing.TB, threads int) *inference.Engine {
	tb.Helper()
	lib := testenv.ORTLibrary(tb)
	o := synth.Tiny()
	o.TokenizerDir = testenv.TokenizerDir(tb, "qwen3")
	dir := filepath.Join(tb.TempDir(), "tiny")
	if err := synth.Write(dir, o); err != nil {
		tb.Fatal(err)
	}
	eng, err := inference.New(inference.Config{Open: decoder.Opener(lib), Preload: true, Routes: []inference.RouteConfig{{
		Name: "cpu", Model: dir, LoadOptions: inference.LoadOptions{EP: inference.EP{Name: "cpu", Threads: threads}},
	}}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close() })
	return eng
}

func serveEngine(tb testing.TB, eng *inference.Engine) string {
	tb.Helper()
	s := server.New(eng, server.Options{Addr: "127.0.0.1:0", ModelName: "tiny"})
	addr, err := s.Start()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return "http://" + addr + "/v1/chat/completions"
}

// greedyBody asks for n tokens, greedy, without reasoning, usage included.
func greedyBody(n int) string {
	return `{"messages":[{"role":"user","content":"Tell me a story."}],"stream":true,"stream_options":{"include_usage":true},` +
		`"temperature":0,"max_tokens":` + itoa(n) + `,"chat_template_kwargs":{"enable_thinking":false}}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// lastChunk is the final chat.completion.chunk of a stream, which carries usage.
type lastChunk struct {
	Choices []any `json:"choices"`
	Usage   *struct {
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	XEdgeChat map[string]any `json:"x_edgechat"`
}

// streamTokens posts body and reads the whole event stream: its data payloads and the
// completion tokens its usage reports.
func streamTokens(tb testing.TB, url, body string) ([]string, lastChunk) {
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		tb.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var data []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok {
			data = append(data, string(d))
		}
	}
	if len(data) < 2 || data[len(data)-1] != "[DONE]" {
		tb.Fatalf("stream does not end with [DONE]: %q", data)
	}
	var last lastChunk
	if err := json.Unmarshal([]byte(data[len(data)-2]), &last); err != nil || last.Usage == nil {
		tb.Fatalf("last chunk %q has no usage (%v)", data[len(data)-2], err)
	}
	return data, last
}

func TestEngineStreaming(t *testing.T) {
	url := serveEngine(t, tinyEngine(t, 0))
	data, last := streamTokens(t, url, greedyBody(16))
	var text strings.Builder
	finish := ""
	for _, d := range data[:len(data)-1] {
		var c struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatalf("chunk %q: %v", d, err)
		}
		for _, ch := range c.Choices {
			text.WriteString(ch.Delta.Content)
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
	}
	if last.Usage.CompletionTokens == 0 || (finish != "stop" && finish != "length") {
		t.Fatalf("%d tokens, finish %q", last.Usage.CompletionTokens, finish)
	}
	if last.XEdgeChat["backend"] != "cpu" || last.XEdgeChat["device"] == "" {
		t.Errorf("x_edgechat %v", last.XEdgeChat)
	}
	t.Logf("%d tokens, finish %s: %q; x_edgechat %v", last.Usage.CompletionTokens, finish, text.String(), last.XEdgeChat)
}

const (
	benchTokens = 64
	// benchThreads keeps ONNX Runtime on one thread: no spinning thread pool, so a shared
	// machine's load disturbs the figures less.
	benchThreads = 1
)

// BenchmarkDirect and BenchmarkServerSSE generate the same greedy reply, by calling the engine
// and through the HTTP API; the difference per token is the server's overhead.
func BenchmarkDirect(b *testing.B) {
	eng := tinyEngine(b, benchThreads)
	tokens := 0
	for b.Loop() {
		tokens += generateDirect(b, eng, benchTokens)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(tokens), "ns/token")
	b.ReportMetric(float64(tokens)/float64(b.N), "tokens/op")
}

// generateDirect makes the benchmark's reply by calling the engine; it returns the tokens.
func generateDirect(b *testing.B, eng *inference.Engine, n int) int {
	zero := 0.0
	req := reply.Request{
		Messages:  []reply.Message{{Role: "user", Content: "Tell me a story."}},
		MaxTokens: n, Sampling: reply.Sampling{Temperature: &zero},
	}
	events, err := eng.Generate(context.Background(), req)
	if err != nil {
		b.Fatal(err)
	}
	tokens := 0
	for ev := range events {
		if ev.Kind == reply.EventDone {
			if ev.Done.Err != nil {
				b.Fatal(ev.Done.Err)
			}
			tokens = ev.Done.GeneratedTokens
		}
	}
	return tokens
}

// BenchmarkPaired makes the same reply directly and through the server, alternately and in
// alternating order, so that the shifting load of a shared machine falls on both alike, and
// reports the server's overhead: (served - direct) / direct over all pairs, in percent.
func BenchmarkPaired(b *testing.B) {
	eng := tinyEngine(b, benchThreads)
	url := serveEngine(b, eng)
	body := greedyBody(benchTokens)
	var direct, served time.Duration
	tokens := 0
	for i := 0; b.Loop(); i++ {
		var n, ns int
		for j := range 2 {
			t0 := time.Now()
			if (i+j)%2 == 0 {
				n = generateDirect(b, eng, benchTokens)
				direct += time.Since(t0)
			} else {
				_, last := streamTokens(b, url, body)
				ns = last.Usage.CompletionTokens
				served += time.Since(t0)
			}
		}
		if n != ns {
			b.Fatalf("direct %d tokens, served %d", n, ns)
		}
		tokens += n
	}
	b.ReportMetric(float64(direct.Nanoseconds())/float64(tokens), "direct-ns/token")
	b.ReportMetric(float64(served.Nanoseconds())/float64(tokens), "sse-ns/token")
	b.ReportMetric(100*(served-direct).Seconds()/direct.Seconds(), "overhead-%")
}

func BenchmarkServerSSE(b *testing.B) {
	url := serveEngine(b, tinyEngine(b, benchThreads))
	body := greedyBody(benchTokens)
	tokens := 0
	for b.Loop() {
		_, last := streamTokens(b, url, body)
		tokens += last.Usage.CompletionTokens
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(tokens), "ns/token")
	b.ReportMetric(float64(tokens)/float64(b.N), "tokens/op")
}

// TestRemoteMatchesDirect checks the whole route: the remote client, talking to this server
// in front of the engine, yields the same reply as calling the engine directly.
func TestRemoteMatchesDirect(t *testing.T) {
	eng := tinyEngine(t, 0)
	url := serveEngine(t, eng)
	zero := 0.0
	req := reply.Request{
		Messages:  []reply.Message{{Role: "user", Content: "Tell me a story."}},
		Thinking:  true,
		MaxTokens: 24, Sampling: reply.Sampling{Temperature: &zero},
	}
	type result struct {
		Thinking, Text string
		Finish         string
		Tokens         int
	}
	collect := func(gen server.Generator) result {
		events, err := gen.Generate(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		c := reply.Collect(context.Background(), events)
		if c.Summary.Err != nil {
			t.Fatal(c.Summary.Err)
		}
		return result{Thinking: c.Thinking, Text: c.Text, Finish: c.Summary.FinishReason, Tokens: c.Summary.GeneratedTokens}
	}
	direct := collect(eng)
	viaRemote := collect(remote.New(remote.Config{BaseURL: strings.TrimSuffix(url, "/chat/completions")}))
	if diff := cmp.Diff(direct, viaRemote); diff != "" {
		t.Errorf("reply (-direct +remote):\n%s", diff)
	}
}

// The real stories260K model through /v1/completions gives its README's greedy text, whole
// and streamed.
func TestStoriesCompletion(t *testing.T) {
	lib := testenv.ORTLibrary(t)
	stories := testenv.SharedModel(t, "stories260K")
	eng, err := inference.New(inference.Config{Open: decoder.Opener(lib), Routes: []inference.RouteConfig{{
		Name: "cpu", Model: stories, LoadOptions: inference.LoadOptions{EP: inference.EP{Name: "cpu"}, MaxContext: 256},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	url := strings.TrimSuffix(serveEngine(t, eng), "/chat/completions") + "/completions"
	prompt, _ := json.Marshal(testenv.StoriesPrompt)
	body := `{"prompt":` + string(prompt) + `,"max_tokens":40,"temperature":0`
	for _, stream := range []bool{false, true} {
		b := body + `,"stream":` + strconv.FormatBool(stream) + `}`
		resp, err := http.Post(url, "application/json", strings.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			msg, _ := io.ReadAll(resp.Body)
			t.Fatalf("stream %v: status %d: %s", stream, resp.StatusCode, msg)
		}
		var text string
		if stream {
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
				if !ok || string(d) == "[DONE]" {
					continue
				}
				var ch struct{ Choices []struct{ Text string } }
				if err := json.Unmarshal(d, &ch); err != nil {
					t.Fatal(err)
				}
				for _, c := range ch.Choices {
					text += c.Text
				}
			}
		} else {
			var c struct{ Choices []struct{ Text string } }
			if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || len(c.Choices) != 1 {
				t.Fatalf("body: %v %+v", err, c)
			}
			text = c.Choices[0].Text
		}
		resp.Body.Close()
		if diff := cmp.Diff(testenv.StoriesText, text); diff != "" {
			t.Errorf("stream %v: text (-want +got):\n%s", stream, diff)
		}
	}
}
