package tinygpt

import (
	"fmt"
	"strings"
	"testing"
)

// smallSource is a valid checkpoint of 1 layer, hidden 2, 1 head, 6 words and 2 positions.
func smallSource() (src, hdr string) {
	hdr = "#define VOCAB_SIZE 6\n#define EMB_DIM 2\n#define CONTEXT_LENGTH 2\n#define N_LAYERS 1\n#define N_HEADS 1\n" +
		"#define SOS_TOKEN_ID 0\n#define EOS_TOKEN_ID 1\n#define PAD_TOKEN_ID 2\n#define UNK_TOKEN_ID 3\n#define SEP_TOKEN_ID 4\n"
	arr := func(name, dims string, n int) string {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = fmt.Sprintf("%.8ff", float64(i%7)/7-0.4)
		}
		return fmt.Sprintf("const float MODEL_DATA_STORAGE %s%s = {%s};\n", name, dims, strings.Join(vals, ", "))
	}
	var b strings.Builder
	b.WriteString(arr("tok_emb_weight", "[VOCAB_SIZE][EMB_DIM]", 12))
	b.WriteString(arr("pos_emb_weight", "[CONTEXT_LENGTH][EMB_DIM]", 4))
	for _, m := range []string{"trf_att_W_query_weight", "trf_att_W_key_weight", "trf_att_W_value_weight", "trf_att_out_proj_weight"} {
		b.WriteString(arr(m, "[N_LAYERS][EMB_DIM][EMB_DIM]", 4))
	}
	for _, v := range []string{"trf_att_out_proj_bias", "trf_ff_lin2_bias", "trf_norm1_scale", "trf_norm1_shift", "trf_norm2_scale", "trf_norm2_shift"} {
		b.WriteString(arr(v, "[N_LAYERS][EMB_DIM]", 2))
	}
	b.WriteString(arr("trf_ff_lin1_weight", "[N_LAYERS][4*EMB_DIM][EMB_DIM]", 16))
	b.WriteString(arr("trf_ff_lin1_bias", "[N_LAYERS][4*EMB_DIM]", 8))
	b.WriteString(arr("trf_ff_lin2_weight", "[N_LAYERS][EMB_DIM][4*EMB_DIM]", 16))
	b.WriteString(arr("final_norm_scale", "[EMB_DIM]", 2))
	b.WriteString(arr("final_norm_shift", "[EMB_DIM]", 2))
	b.WriteString(arr("out_head_weight", "[VOCAB_SIZE][EMB_DIM]", 12))
	b.WriteString(`const char* const token_strings[VOCAB_SIZE] = { "<sos>", "<eos>", "<pad>", "<unk>", "<sep>", "car" };` + "\n")
	return b.String(), hdr
}

// Any source and header either parse into a checkpoint whose every array and the vocabulary
// have the sizes the header gives, and which maps to weights or says why not, or are refused;
// nothing panics.
func FuzzParse(f *testing.F) {
	src, hdr := smallSource()
	f.Add(src, hdr)
	f.Add(strings.Replace(src, "4*EMB_DIM", "4*N_HEADS", 1), hdr)
	f.Add(src, strings.Replace(hdr, "N_HEADS 1", "N_HEADS 0", 1))
	f.Fuzz(func(t *testing.T, src, hdr string) {
		c, err := Parse([]byte(src), []byte(hdr))
		if err != nil {
			return
		}
		if len(c.Tokens) != c.Vocab || c.Hidden%c.Heads != 0 {
			t.Fatalf("%d tokens for %d words, hidden %d, %d heads", len(c.Tokens), c.Vocab, c.Hidden, c.Heads)
		}
		if _, err := c.weights(); err != nil && !strings.Contains(err.Error(), "array") && !strings.Contains(err.Error(), "weight") {
			t.Fatalf("weights: %v", err)
		}
	})
}

// The small source converts, so FuzzParse's seed reaches the weight mapping.
func TestSmallSourceConverts(t *testing.T) {
	src, hdr := smallSource()
	c, err := Parse([]byte(src), []byte(hdr))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.weights(); err != nil {
		t.Fatal(err)
	}
	if err := Write(t.TempDir(), c); err != nil {
		t.Fatal(err)
	}
}
