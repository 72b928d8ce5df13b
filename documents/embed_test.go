package documents

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFuse(t *testing.T) {
	tests := []struct {
		name     string
		rankings [][]int
		want     []int
	}{
		{"one ranking", [][]int{{2, 0, 1}}, []int{2, 0, 1}},
		{"agreement", [][]int{{0, 1, 2}, {0, 1, 2}}, []int{0, 1, 2}},
		// 1 is second and first: 1/62 + 1/61 beats 0's 1/61 + 1/63.
		{"consistent wins", [][]int{{0, 1, 2}, {1, 2, 0}}, []int{1, 0, 2}},
		{"items in one list only", [][]int{{0, 1}, {2}}, []int{0, 2, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, fuse(tt.rankings...)); diff != "" {
				t.Errorf("fuse (-want +got):\n%s", diff)
			}
		})
	}
}

func quantized(t *testing.T, vecs [][]float32) *Vectors {
	t.Helper()
	v, err := Quantize(vecs)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSemanticOrder(t *testing.T) {
	docs := []*Doc{
		{Vectors: quantized(t, [][]float32{{1, 0}, {0.6, 0.8}})},
		{}, // not embedded: takes no part
		{Vectors: quantized(t, [][]float32{{0, 1}})},
	}
	got := semanticOrder(docs, []float32{0, 2}, 2)
	if diff := cmp.Diff([][2]int{{2, 0}, {0, 1}}, got); diff != "" {
		t.Errorf("semanticOrder (-want +got):\n%s", diff)
	}
}
