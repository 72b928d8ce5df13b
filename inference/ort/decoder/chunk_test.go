package decoder

import (
	"testing"

	"edgechat/models"
)

// TestChunk: prefill runs are as long as the graph allows while the attention scores they
// hold stay within scoreBytes.
func TestChunk(t *testing.T) {
	for _, tc := range []struct {
		name                string
		keep, shared        bool
		queryHeads, kvHeads int
		capTokens           int
		want                int
	}{
		{"every row's logits", false, false, 16, 8, 512, prefillChunk},
		{"shared buffer, short prompt", true, true, 16, 8, 428, lastRowChunk},
		{"concatenating cache, short prompt", true, false, 16, 8, 428, concatChunk},
		{"Qwen3 heads at a 2,048-token buffer", true, true, 16, 8, 2048, 256},
		{"Qwen3 heads at a 4,096-token buffer", true, true, 16, 8, 4096, 128},
		{"Qwen3 heads at its whole context", true, true, 16, 8, 40960, minChunk},
		{"no config: four query heads per KV head", true, true, 0, 8, 4096, 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			io := &models.DecoderIO{QueryHeads: tc.queryHeads, KVHeads: tc.kvHeads}
			if tc.keep {
				io.LogitsToKeep = "logits_to_keep"
			}
			d := &dynamicDecoder{io: io, kv: &kvBuffers{shared: tc.shared}}
			if got := d.chunk(tc.capTokens); got != tc.want {
				t.Errorf("chunk() = %d, want %d", got, tc.want)
			}
			if got := d.chunk(tc.capTokens); got > minChunk && tc.keep {
				heads := tc.queryHeads
				if heads == 0 {
					heads = 4 * tc.kvHeads
				}
				scores := 4 * heads * got * tc.capTokens
				if scores > scoreBytes {
					t.Errorf("a run of %d holds %d bytes of scores, over %d", got, scores, scoreBytes)
				}
			}
		})
	}
}

// TestGrown: the capacity a prefill's runs grow the cache to, doubling from 256.
func TestGrown(t *testing.T) {
	for _, tc := range []struct{ cap, max, tokens, want int }{
		{0, 4096, 100, 256},
		{0, 4096, 428, 512},
		{0, 4096, 3000, 4096},
		{0, 3000, 3000, 3000},
		{1024, 40960, 1000, 1024},
		{1024, 40960, 1025, 2048},
	} {
		kv := &kvBuffers{capTokens: tc.cap, maxTokens: tc.max}
		if got := kv.grown(tc.tokens); got != tc.want {
			t.Errorf("capacity %d (max %d) grown to hold %d: %d, want %d", tc.cap, tc.max, tc.tokens, got, tc.want)
		}
	}
}

// TestPromptLeavesRoomToDecode: a prompt's buffer has room for the reply's first tokens, so the
// first decoded token does not grow the cache and copy every row the prompt cached.
func TestPromptLeavesRoomToDecode(t *testing.T) {
	for _, tc := range []struct{ max, prompt, want int }{
		{4096, 428, 512},
		{4096, 100, 256},
		{4096, 600, 1024},
		{492, 428, 492}, // edgechat bench --seq-len 428 --decode-tokens 64
	} {
		kv := newKVBuffers(1, 1, 8, "float32", tc.max, true)
		if err := kv.ensure(tc.prompt); err != nil {
			t.Fatal(err)
		}
		kv.advance(tc.prompt)
		before := &kv.bufs[0][0][0]
		if err := kv.ensure(tc.prompt + 1); err != nil {
			t.Fatal(err)
		}
		if kv.capTokens != tc.want || &kv.bufs[0][0][0] != before {
			t.Errorf("%d-token prompt (max %d): capacity %d, want %d without growing for the next token", tc.prompt, tc.max, kv.capTokens, tc.want)
		}
		kv.free()
	}
}
