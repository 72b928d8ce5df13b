package inference

import "testing"

func TestParseKVCache(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want KVCache
		bad  bool
	}{
		{"auto", KVAuto, false}, {"", KVAuto, true}, {"32-bit", KV32, false}, {"32", KV32, false}, {" 8-BIT ", KV8, false},
		{"8", KV8, false}, {"4", KVAuto, true}, {"int8", KVAuto, true}, {"-bit", KVAuto, true},
	} {
		got, err := ParseKVCache(tt.in)
		if got != tt.want || (err != nil) != tt.bad {
			t.Errorf("ParseKVCache(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.bad)
		}
		if err == nil {
			if back, _ := ParseKVCache(got.String()); back != got {
				t.Errorf("%v does not read back from its name %q", got, got.String())
			}
		}
	}
	if s := KVCache(9).String(); s != "KVCache(9)" {
		t.Errorf("KVCache(9) = %q", s)
	}
}
