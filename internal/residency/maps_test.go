package residency

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseHeader(t *testing.T) {
	for _, c := range []struct {
		line string
		want mapping
		err  bool
	}{
		{"7f52e6e7f000-7f530c000000 r--p 00001000 fe:00 9978241                    /models/qwen/onnx/model.onnx_data",
			mapping{start: 0x7f52e6e7f000, end: 0x7f530c000000, perms: "r--p", offset: 0x1000, dev: "fe:00", inode: 9978241, path: "/models/qwen/onnx/model.onnx_data"}, false},
		{"00400000-00452000 r-xp 00000000 08:02 173521      /my models/with  two spaces",
			mapping{start: 0x400000, end: 0x452000, perms: "r-xp", dev: "08:02", inode: 173521, path: "/my models/with  two spaces"}, false},
		{"7ffd1c5e1000-7ffd1c602000 rw-p 00000000 00:00 0                          [stack]",
			mapping{start: 0x7ffd1c5e1000, end: 0x7ffd1c602000, perms: "rw-p", dev: "00:00", path: "[stack]"}, false},
		{"7f0000000000-7f0000021000 rw-p 00000000 00:00 0", mapping{start: 0x7f0000000000, end: 0x7f0000021000, perms: "rw-p", dev: "00:00"}, false},
		{"7f0000021000-7f0000000000 rw-p 00000000 00:00 0", mapping{}, true}, // end before start
		{"zz-10 rw-p 00000000 00:00 0", mapping{}, true},
		{"10-20 rw-p", mapping{}, true},
		{"", mapping{}, true},
	} {
		got, err := parseHeader(c.line)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("parseHeader(%q) = %+v, %v; want %+v, error %v", c.line, got, err, c.want, c.err)
		}
	}
}

func TestParseSmaps(t *testing.T) {
	smaps := strings.Join([]string{
		"7f11f9800000-7f121e980000 rw-p 00000000 fe:00 9979647                    /m/onnx/model.onnx_data",
		"Size:             607744 kB",
		"Rss:               47104 kB",
		"Private_Dirty:         0 kB",
		"Anonymous:             0 kB",
		"THPeligible:           0",
		"VmFlags: rd wr mr mw me ac ",
		"7f121e980000-7f121e981000 rw-p 00000000 00:00 0 ",
		"Rss:                   4 kB",
		"Anonymous:             4 kB",
		"",
	}, "\n")
	got, err := parseSmaps([]byte(smaps))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].path != "/m/onnx/model.onnx_data" || got[0].rss != 47104<<10 || got[0].anon != 0 || got[1].anon != 4<<10 {
		t.Fatalf("parseSmaps = %+v", got)
	}
	if _, err := parseSmaps([]byte("Rss: 4 kB\n")); err == nil {
		t.Error("a size line before any mapping was accepted")
	}
	if _, err := parseSmaps([]byte("7f00-7f10 rw-p 0 00:00 0\nRss: x kB\n")); err == nil {
		t.Error("a malformed size was accepted")
	}
}

func TestUnderDevicePath(t *testing.T) {
	for _, c := range []struct {
		path, want string
		ok         bool
	}{
		{`\Device\HarddiskVolume3\Users\Ada\Models\Qwen3\onnx\model.onnx_data`, `\users\ada\models\qwen3\`, true},
		{`\Device\HarddiskVolume3\Users\Ada\Models\Qwen3-int4\model.onnx.data`, `\users\ada\models\qwen3\`, false},
		{`\Device\HarddiskVolume3\Windows\System32\kernel32.dll`, `\users\ada\models\qwen3\`, false},
		{`\Device`, `\`, false},
	} {
		if got := underDevicePath(c.path, c.want); got != c.ok {
			t.Errorf("underDevicePath(%q, %q) = %v", c.path, c.want, got)
		}
	}
}

// FuzzParseSmaps feeds the smaps parser arbitrary text: it returns mappings or an error, never
// panics, and a header it formats itself parses back to the same mapping.
func FuzzParseSmaps(f *testing.F) {
	f.Add([]byte("7f11f9800000-7f121e980000 rw-p 00000000 fe:00 9979647  /m/onnx/model.onnx_data\nRss: 4 kB\nAnonymous: 0 kB\nVmFlags: rd wr\n"))
	f.Add([]byte("00400000-00452000 r-xp 00000000 08:02 173521 /with space/x\n"))
	f.Add([]byte("Rss: 4 kB\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, err := parseSmaps(b)
		if err != nil {
			return
		}
		for _, m := range ms {
			if m.end < m.start || m.rss < 0 || m.anon < 0 {
				t.Fatalf("impossible mapping %+v", m)
			}
			if m.path != "" && strings.TrimSpace(m.path) != m.path {
				continue // the kernel never writes such paths; no round trip expected
			}
			line := fmt.Sprintf("%x-%x %s %08x %s %d %s", m.start, m.end, m.perms, m.offset, m.dev, m.inode, m.path)
			back, err := parseHeader(line)
			if err != nil || back != m.mapping {
				t.Fatalf("%q parsed as %+v, formatted %q, parsed back %+v, %v", b, m.mapping, line, back, err)
			}
		}
	})
}
