package residency

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// mapping is one line of /proc/PID/maps: "start-end perms offset dev inode [path]".
type mapping struct {
	start, end uintptr
	perms      string
	offset     uint64
	dev        string
	inode      uint64
	path       string
}

// sized is a mapping with its smaps counters, in bytes.
type sized struct {
	mapping
	rss  int64
	anon int64 // pages the process wrote to since mapping (copy-on-write)
}

// parseSmaps reads an smaps file: a maps line per mapping followed by "Key: value kB" lines.
func parseSmaps(b []byte) ([]sized, error) {
	var out []sized
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		key, val, ok := strings.Cut(line, ":")
		if !ok || strings.ContainsAny(key, " -") {
			m, err := parseHeader(line)
			if err != nil {
				return nil, err
			}
			out = append(out, sized{mapping: m})
			continue
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("smaps: %q before any mapping", line)
		}
		fields := strings.Fields(val)
		if len(fields) != 2 || fields[1] != "kB" {
			continue // VmFlags, THPeligible and other lines that are not sizes
		}
		u, err := strconv.ParseUint(fields[0], 10, 53)
		if err != nil {
			return nil, fmt.Errorf("smaps: %q: %w", line, err)
		}
		n := int64(u)
		s := &out[len(out)-1]
		switch key {
		case "Rss":
			s.rss = n << 10
		case "Anonymous":
			s.anon = n << 10
		}
	}
	return out, sc.Err()
}

// parseHeader reads one maps line. The path may hold spaces; it is absent for anonymous
// memory.
func parseHeader(line string) (mapping, error) {
	var m mapping
	bad := func() (mapping, error) { return mapping{}, fmt.Errorf("malformed memory map line %q", line) }
	var f [5]string
	rest := line
	for i := range f {
		rest = strings.TrimLeft(rest, " ")
		j := strings.IndexByte(rest, ' ')
		if j < 0 {
			if i < 4 || rest == "" {
				return bad()
			}
			f[i], rest = rest, ""
			break
		}
		f[i], rest = rest[:j], rest[j:]
	}
	lo, hi, ok := strings.Cut(f[0], "-")
	if !ok {
		return bad()
	}
	start, err1 := strconv.ParseUint(lo, 16, 64)
	end, err2 := strconv.ParseUint(hi, 16, 64)
	off, err3 := strconv.ParseUint(f[2], 16, 64)
	inode, err4 := strconv.ParseUint(f[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || end < start || len(f[1]) != 4 {
		return bad()
	}
	m.start, m.end, m.perms, m.offset, m.dev, m.inode = uintptr(start), uintptr(end), f[1], off, f[3], inode
	m.path = strings.TrimLeft(rest, " ")
	return m, nil
}
