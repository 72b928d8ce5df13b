//go:build hftokenizers

package tokenizer

import (
	"testing"

	"edgechat/internal/testkit/testenv"
)

// TestGoldenHF runs the golden cases through the Rust library, for builds that link it.
func TestGoldenHF(t *testing.T) {
	for _, name := range tokenizerNames {
		t.Run(name, func(t *testing.T) {
			tk, err := LoadHF(testenv.TokenizerDir(t, name))
			if err != nil {
				t.Fatal(err)
			}
			defer tk.Close()
			checkGolden(t, tk, name)
		})
	}
}
