package safepath

import (
	"path/filepath"
	"strings"
	"testing"
)

var relCases = []struct {
	p  string
	ok bool
}{
	{"config.json", true},
	{"onnx/model_q4.onnx", true},
	{"cpu_and_mobile/cpu-int4-rtn-block-32-acc-level-4/model.onnx.data", true},
	{".gitattributes", true},
	{"a/.hidden/b", true},
	{"Ünïcødé/模型.onnx", true},
	{"comet.json", true}, // COM followed by a letter is no device
	{"console/x", true},
	{"", false},
	{"/etc/passwd", false},
	{"../escape.json", false},
	{"a/../../b", false},
	{"a/./b", false},
	{"..", false},
	{"a//b", false},
	{"a/", false},
	{`..\..\x.json`, false},
	{`sub\model.onnx`, false},
	{"C:/Windows/x", false},
	{"C:x", false},
	{"model.onnx:stream", false},
	{"CON", false},
	{"con.json", false},
	{"sub/NUL", false},
	{"nul .txt", false},
	{"COM1.onnx", false},
	{"lpt9", false},
	{"COM¹", false},
	{"CONOUT$", false},
	{"trailing.", false},
	{"trailing ", false},
	{"dir./x", false},
	{"tab\tname", false},
	{"nl\nname", false},
	{"del\x7f", false},
	{"bad\xffutf8", false},
	{"ask?.json", false},
	{"star*.json", false},
	{`quote".json`, false},
	{"a<b>|c", false},
	{strings.Repeat("a", MaxName+1), false},
	{strings.Repeat("a/", MaxPath/2) + "a", false},
}

func TestRel(t *testing.T) {
	for _, tc := range relCases {
		err := Rel(tc.p)
		if (err == nil) != tc.ok {
			t.Errorf("Rel(%q) = %v, want ok %v", tc.p, err, tc.ok)
		}
	}
}

func TestReserved(t *testing.T) {
	for s, want := range map[string]bool{
		"CON": true, "con": true, "Aux.txt": true, "PRN.tar.gz": true, "COM0": true, "lpt3.log": true,
		"CONIN$": true, "NUL  ": true, "COM²": true,
		"CONX": false, "COM": false, "COM10": false, "LPT": false, "xnul": false, "nu": false, "": false,
	} {
		if got := Reserved(s); got != want {
			t.Errorf("Reserved(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzRel: whatever Rel accepts joins below any folder on this system and would on Windows:
// no separator but '/', no drive or stream ':', no part that Windows would change or take as
// a device.
func FuzzRel(f *testing.F) {
	for _, tc := range relCases {
		f.Add(tc.p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if Rel(p) != nil {
			return
		}
		root := filepath.FromSlash("/models/org--name")
		joined := filepath.Join(root, filepath.FromSlash(p))
		if !strings.HasPrefix(joined, root+string(filepath.Separator)) || !filepath.IsLocal(filepath.FromSlash(p)) {
			t.Fatalf("Rel accepted %q, which joins to %s", p, joined)
		}
		if strings.ContainsAny(p, `\:`) {
			t.Fatalf("Rel accepted %q, which holds a Windows separator or ':'", p)
		}
		for part := range strings.SplitSeq(p, "/") {
			base, _, _ := strings.Cut(part, ".")
			base = strings.ToUpper(strings.TrimRight(base, " "))
			if strings.HasSuffix(part, ".") || strings.HasSuffix(part, " ") || base == "CON" || base == "NUL" || base == "AUX" || base == "PRN" ||
				len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) && base[3] >= '0' && base[3] <= '9' {
				t.Fatalf("Rel accepted %q, whose part %q Windows changes or takes as a device", p, part)
			}
		}
	})
}
