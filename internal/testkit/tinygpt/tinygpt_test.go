package tinygpt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"edgechat/tokenizer"
)

// The published checkpoint parses to its header's shape, every array whole.
func TestParseOriginal(t *testing.T) {
	c, err := Parse(Original())
	if err != nil {
		t.Fatal(err)
	}
	if c.Vocab != 445 || c.Hidden != 16 || c.Positions != 22 || c.Layers != 4 || c.Heads != 8 {
		t.Fatalf("shape %d words, hidden %d, %d positions, %d layers, %d heads; want 445, 16, 22, 4, 8",
			c.Vocab, c.Hidden, c.Positions, c.Layers, c.Heads)
	}
	if len(c.Arrays) != 18 || len(c.Arrays["trf_ff_lin1_weight"]) != 4*64*16 || c.Arrays["tok_emb_weight"][0] != 1.12940574 {
		t.Fatalf("%d arrays, lin1 %d numbers, first embedding value %v", len(c.Arrays), len(c.Arrays["trf_ff_lin1_weight"]), c.Arrays["tok_emb_weight"][0])
	}
	if c.Tokens[4] != "<sep>" || c.Tokens[5] != "what" || c.Special["SEP"] != 4 {
		t.Fatalf("tokens %q…, special %v", c.Tokens[:6], c.Special)
	}
}

// Damaged sources are refused with what is wrong.
func TestParseRefuses(t *testing.T) {
	src, hdr := Original()
	for _, tc := range []struct {
		name     string
		src, hdr string
		want     string
	}{
		{"no heads", string(src), strings.Replace(string(hdr), "#define N_HEADS 8", "", 1), "does not define N_HEADS"},
		{"short array", strings.Replace(string(src), "{{0.79936630f, ", "{{", 1), string(hdr), "array pos_emb_weight holds 351 numbers"},
		{"heads", string(src), strings.Replace(string(hdr), "#define N_HEADS 8", "#define N_HEADS 3", 1), "not a multiple of 3 heads"},
		{"vocabulary", strings.Replace(string(src), `"<sos>", `, "", 1), string(hdr), "444 token strings for a vocabulary of 445"},
	} {
		if _, err := Parse([]byte(tc.src), []byte(tc.hdr)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// The converted tokenizer.json, read by EdgeChat's tokenizer, gives the ids the model's own
// Python tokenizer gave (the reference's prompts, punctuation, capitals and unknown words
// included) and decodes answers as the original runtime printed them.
func TestTokenizerMatchesOriginal(t *testing.T) {
	c, err := Parse(Original())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := writeJSON(filepath.Join(dir, "tokenizer.json"), c.tokenizerJSON()); err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.Load(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../../../inference/ort/decoder/testdata/tinygpt_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden []struct {
		Question string `json:"question"`
		Prompt   []int  `json:"prompt"`
		Tokens   []int  `json:"tokens"`
		Text     string `json:"text"`
	}
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	for _, q := range golden {
		if got := tok.EncodeSpecial("<sos> " + q.Question + " <sep>"); !slices.Equal(got, q.Prompt) {
			t.Errorf("%q: ids %v, the model's tokenizer %v", q.Question, got, q.Prompt)
		}
		answer := slices.DeleteFunc(slices.Clone(q.Tokens), func(id int) bool { return id == 1 || id == 2 })
		if got := tok.Decode(answer, true); got != q.Text {
			t.Errorf("%q: decoded %q, want %q", q.Question, got, q.Text)
		}
	}
	if got := tok.Encode("<sos> What"); !slices.Equal(got, []int{3, 5}) {
		t.Errorf("user text %q: %v, want <unk> what ([3 5]): special tokens are not matched in user text", "<sos> What", got)
	}
}
