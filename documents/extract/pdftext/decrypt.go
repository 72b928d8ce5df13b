package pdftext

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/md5"
	"crypto/rc4"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"hash"
	"regexp"
	"slices"
	"strconv"
)

// Encrypted files that open without a password. Acrobat, Word and LibreOffice encrypt a
// file with an empty user password when an owner password restricts printing or copying,
// and every reader opens it without asking. The object reader reads RC4 with 128-bit keys
// and AES-128 itself, but takes a shorter RC4 key's whole MD5 as the objects' key (the
// text comes out as garbage or the file "damaged") and does not know AES-256 (PDF 2.0,
// Acrobat X and later). For those decryptedCopy decrypts the file itself with the empty
// password (ISO 32000-2 §7.6) into a plain copy, without /Encrypt, whose objects it lists
// in a new cross-reference stream (rebuiltXref, repair.go).

// errPassword is a file that needs a password to be opened.
var errPassword = fmt.Errorf("%w: it asks for a password to be opened", ErrEncrypted)

// cryptMethod is how a crypt filter encrypts.
type cryptMethod uint8

const (
	cryptNone cryptMethod = iota
	cryptRC4
	cryptAES128
	cryptAES256
)

// security is an encrypted file's handler opened with the empty password.
type security struct {
	key            []byte
	strings        cryptMethod
	streams        cryptMethod
	encryptMeta    bool
	encryptObj     int     // the /Encrypt dictionary's object number, 0 when it is direct
	cf             operand // the crypt filters (/CF), which a stream's own /Crypt filter names
	libraryReadsIt bool
}

// encryptRef is the trailer's /Encrypt: a reference or a dictionary.
var encryptRef = regexp.MustCompile(`/Encrypt\s*(?:(\d+)\s+(\d+)\s+R|<<)`)

// openSecurity returns the security handler of data's trailer opened with the empty
// password, nil when the file is not encrypted, or errPassword (or another ErrEncrypted)
// when it cannot be opened without a password.
func openSecurity(data []byte) (*security, error) {
	trailers := trailerDicts(data)
	ms := encryptRef.FindAllSubmatchIndex(trailers, -1)
	if len(ms) == 0 {
		return nil, nil
	}
	m := ms[len(ms)-1]
	s := &security{encryptMeta: true}
	var dictAt []byte
	if m[2] >= 0 {
		s.encryptObj, _ = strconv.Atoi(string(trailers[m[2]:m[3]]))
		gen, _ := strconv.Atoi(string(trailers[m[4]:m[5]]))
		at := objectOffset(data, s.encryptObj, gen)
		if at < 0 {
			return nil, fmt.Errorf("%w (its encryption dictionary is missing)", ErrEncrypted)
		}
		dictAt = data[at:]
		if i := bytes.Index(dictAt[:min(len(dictAt), 64)], []byte("obj")); i >= 0 {
			dictAt = dictAt[i+3:]
		}
	} else {
		dictAt = trailers[m[1]-2:]
	}
	l := &lexer{data: dictAt}
	var enc operand
	if _, isOp, ok := l.nextShallow(&enc); !ok || isOp || enc.kind != kDict {
		return nil, fmt.Errorf("%w (its encryption dictionary is unreadable)", ErrEncrypted)
	}
	var id []byte
	if ids := trailerID.FindAllSubmatch(trailers, -1); len(ids) > 0 {
		var op operand
		(&lexer{data: ids[len(ids)-1][1]}).next(&op)
		id = []byte(op.str)
	}
	if f := dictGet(enc, "Filter"); f.str != "Standard" {
		return nil, fmt.Errorf("%w (by the %q security handler, not a password)", ErrEncrypted, f.str)
	}
	v, r := int(dictGet(enc, "V").num), int(dictGet(enc, "R").num)
	bits := int(dictGet(enc, "Length").num)
	if bits == 0 {
		bits = 40
		if v == 4 {
			bits = 128
		}
	}
	if bits < 40 || bits > 128 || bits%8 != 0 {
		bits = 128
	}
	if e := dictGet(enc, "EncryptMetadata"); e.kind == kBool && e.num == 0 {
		s.encryptMeta = false
	}
	o, u := []byte(dictGet(enc, "O").str), []byte(dictGet(enc, "U").str)
	p := uint32(int64(dictGet(enc, "P").num)) // -3904, or the same bits written unsigned
	switch {
	case v == 1 || v == 2:
		s.strings, s.streams = cryptRC4, cryptRC4
	case v == 4 || v == 5:
		s.cf = dictGet(enc, "CF")
		s.strings = filterMethod(s.cf, dictGet(enc, "StrF").str)
		s.streams = filterMethod(s.cf, dictGet(enc, "StmF").str)
	default:
		return nil, fmt.Errorf("%w (by an unknown method, V %d)", ErrEncrypted, v)
	}
	// Strings and streams under the Identity filter (/StmF and /StrF, /EFF naming a filter
	// of attachments only, as Acrobat encrypts attachments alone): the document reads without
	// the key, which the password guards for the attachments. pdftotext reads it; it asked
	// for a password (qpdf's encrypted-attachments, unfilterable-with-crypt).
	plain := s.strings == cryptNone && s.streams == cryptNone
	switch {
	case r >= 2 && r <= 4:
		if len(o) < 32 || len(u) < 16 {
			return nil, fmt.Errorf("%w (its encryption dictionary is unreadable)", ErrEncrypted)
		}
		n := bits / 8
		if r == 2 {
			n = 5
		}
		s.key = fileKeyRC4(passwordPad, o[:32], p, id, n, r, s.encryptMeta)
		byUser := bytes.HasPrefix(u, userCheck(s.key, id, r))
		if !byUser {
			// an empty owner password opens it too (Algorithm 7: /O holds the user
			// password encrypted with the owner password's key), as in pdftotext
			s.key = fileKeyRC4(ownerUserPassword(o[:32], n, r), o[:32], p, id, n, r, s.encryptMeta)
			if !bytes.HasPrefix(u, userCheck(s.key, id, r)) {
				if plain {
					s.key = nil
					return s, nil
				}
				return nil, errPassword
			}
		}
		s.libraryReadsIt = byUser && r >= 3 && n == 16 && s.encryptMeta && (v == 2 && s.strings == cryptRC4 ||
			v == 4 && s.strings == cryptAES128 && s.streams == cryptAES128) && !hasCryptFilter(data)
	case r == 5 || r == 6:
		ue, oe := []byte(dictGet(enc, "UE").str), []byte(dictGet(enc, "OE").str)
		if len(u) < 48 || len(ue) < 32 {
			return nil, fmt.Errorf("%w (its encryption dictionary is unreadable)", ErrEncrypted)
		}
		hash := func(salt, udata []byte) []byte {
			if r == 5 {
				h := sha256.Sum256(append(bytes.Clone(salt), udata...))
				return h[:]
			}
			return hash2B(salt, udata)
		}
		// the empty user password (Algorithm 11), else the empty owner password
		// (Algorithm 12), which pdftotext also tries
		var keyKey, wrapped []byte
		switch {
		case bytes.Equal(hash(u[32:40], nil), u[:32]):
			keyKey, wrapped = hash(u[40:48], nil), ue
		case len(o) >= 48 && len(oe) >= 32 && bytes.Equal(hash(o[32:40], u[:48]), o[:32]):
			keyKey, wrapped = hash(o[40:48], u[:48]), oe
		case plain:
			return s, nil
		default:
			return nil, errPassword
		}
		block, _ := aes.NewCipher(keyKey)
		s.key = make([]byte, 32)
		cipher.NewCBCDecrypter(block, make([]byte, 16)).CryptBlocks(s.key, wrapped[:32])
	default:
		return nil, fmt.Errorf("%w (by an unknown method, R %d)", ErrEncrypted, r)
	}
	return s, nil
}

// filterMethod is the method of the crypt filter name in the CF dictionary.
func filterMethod(cf operand, name string) cryptMethod {
	if name == "" || name == "Identity" {
		return cryptNone
	}
	switch dictGet(dictGet(cf, name), "CFM").str {
	case "V2":
		return cryptRC4
	case "AESV2":
		return cryptAES128
	case "AESV3":
		return cryptAES256
	}
	return cryptNone
}

// dictGet is the value of key in dictionary d (a null operand when absent). References
// ("5 0 R") are skipped over.
func dictGet(d operand, key string) operand {
	if d.kind != kDict {
		return operand{}
	}
	a := d.arr
	for i := 0; i+1 < len(a); i += 2 {
		k, v := a[i], a[i+1]
		if v.kind == kNum && i+3 < len(a) && a[i+2].kind == kNum && a[i+3].kind == kName && a[i+3].str == "R" {
			i += 2 // a reference: not followed here
			v = operand{}
		}
		if k.kind == kName && k.str == key {
			return v
		}
	}
	return operand{}
}

// passwordPad pads a password to 32 bytes (Algorithm 2, step a).
var passwordPad = []byte("\x28\xbf\x4e\x5e\x4e\x75\x8a\x41\x64\x00\x4e\x56\xff\xfa\x01\x08\x2e\x2e\x00\xb6\xd0\x68\x3e\x80\x2f\x0c\xa9\xfe\x64\x53\x69\x7a")

// fileKeyRC4 is Algorithm 2 for the user password padded to 32 bytes (passwordPad for
// the empty one): the file key of n bytes.
func fileKeyRC4(padded, o []byte, p uint32, id []byte, n, r int, encryptMeta bool) []byte {
	h := md5.New()
	h.Write(padded)
	h.Write(o)
	h.Write([]byte{byte(p), byte(p >> 8), byte(p >> 16), byte(p >> 24)})
	h.Write(id)
	if r >= 4 && !encryptMeta {
		h.Write([]byte{0xff, 0xff, 0xff, 0xff})
	}
	key := h.Sum(nil)
	if r >= 3 {
		for range 50 {
			sum := md5.Sum(key[:n])
			key = sum[:]
		}
	}
	return key[:n]
}

// ownerUserPassword is the padded user password that /O holds for the empty owner
// password (Algorithm 7, steps a–b of Algorithm 3).
func ownerUserPassword(o []byte, n, r int) []byte {
	sum := md5.Sum(passwordPad)
	key := sum[:]
	if r >= 3 {
		for range 50 {
			sum = md5.Sum(key)
			key = sum[:]
		}
	}
	key = key[:n]
	out := bytes.Clone(o)
	if r == 2 {
		c, _ := rc4.NewCipher(key)
		c.XORKeyStream(out, out)
		return out
	}
	k := make([]byte, n)
	for i := 19; i >= 0; i-- {
		for j := range key {
			k[j] = key[j] ^ byte(i)
		}
		c, _ := rc4.NewCipher(k)
		c.XORKeyStream(out, out)
	}
	return out
}

// userCheck is what /U starts with when key is the empty password's (Algorithms 4 and 5).
func userCheck(key, id []byte, r int) []byte {
	if r == 2 {
		u := bytes.Clone(passwordPad)
		c, _ := rc4.NewCipher(key)
		c.XORKeyStream(u, u)
		return u
	}
	h := md5.New()
	h.Write(passwordPad)
	h.Write(id)
	u := h.Sum(nil)
	k := make([]byte, len(key))
	for i := range 20 {
		for j := range key {
			k[j] = key[j] ^ byte(i)
		}
		c, _ := rc4.NewCipher(k)
		c.XORKeyStream(u, u)
	}
	return u
}

// hash2B is Algorithm 2.B (R 6) for the empty password: salt is the validation or key
// salt, udata the first 48 bytes of /U for the owner password (nil for the user's).
func hash2B(salt, udata []byte) []byte {
	k0 := sha256.Sum256(append(bytes.Clone(salt), udata...))
	k := k0[:]
	var e []byte
	for i := 0; i < 64 || int(e[len(e)-1]) > i-32; i++ {
		k1 := bytes.Repeat(append(bytes.Clone(k), udata...), 64) // the password is empty
		block, _ := aes.NewCipher(k[:16])
		e = make([]byte, len(k1))
		cipher.NewCBCEncrypter(block, k[16:32]).CryptBlocks(e, k1)
		sum := 0
		for _, b := range e[:16] {
			sum += int(b)
		}
		var h hash.Hash
		switch sum % 3 {
		case 0:
			h = sha256.New()
		case 1:
			h = sha512.New384()
		default:
			h = sha512.New()
		}
		h.Write(e)
		k = h.Sum(nil)
	}
	return k[:32]
}

// objectKey is the key of object num, gen's strings and streams (Algorithm 1).
func (s *security) objectKey(m cryptMethod, num, gen int) []byte {
	if m == cryptAES256 {
		return s.key
	}
	h := md5.New()
	h.Write(s.key)
	h.Write([]byte{byte(num), byte(num >> 8), byte(num >> 16), byte(gen), byte(gen >> 8)})
	if m == cryptAES128 {
		h.Write([]byte("sAlT"))
	}
	return h.Sum(nil)[:min(len(s.key)+5, 16)]
}

// decrypt returns data decrypted by method m for object num, gen; without the key (a file
// whose strings and streams are not encrypted, opened without its password) data as it is.
func (s *security) decrypt(m cryptMethod, num, gen int, data []byte) []byte {
	if s.key == nil {
		return data
	}
	switch m {
	case cryptRC4:
		c, _ := rc4.NewCipher(s.objectKey(m, num, gen))
		out := make([]byte, len(data))
		c.XORKeyStream(out, data)
		return out
	case cryptAES128, cryptAES256:
		if len(data) < 32 {
			return nil // an IV and at least the padding's block
		}
		block, _ := aes.NewCipher(s.objectKey(m, num, gen))
		out := bytes.Clone(data[16 : 16+(len(data)-16)/16*16])
		cipher.NewCBCDecrypter(block, data[:16]).CryptBlocks(out, out)
		if pad := int(out[len(out)-1]); pad >= 1 && pad <= 16 {
			out = out[:len(out)-pad]
		}
		return out
	}
	return data
}

// objectOffsets maps each object number of headers to the offset of its last definition.
func objectOffsets(headers []header) map[int]int {
	offs := map[int]int{}
	for _, h := range headers {
		offs[h.num] = h.start
	}
	return offs
}

// objectOffset is the offset of the last "num gen obj" in data, or -1.
func objectOffset(data []byte, num, gen int) int {
	key := []byte(fmt.Sprintf("%d %d obj", num, gen))
	for end := len(data); end > 0; {
		i := bytes.LastIndex(data[:end], key)
		if i < 0 {
			break
		}
		if i == 0 || !('0' <= data[i-1] && data[i-1] <= '9') {
			return i
		}
		end = i
	}
	if at, ok := objectOffsets(objectHeaders(data))[num]; ok { // other spaces than one
		return at
	}
	return -1
}

// Stream dictionaries the copy treats apart.
var (
	xrefType     = regexp.MustCompile(`/Type\s*/XRef\b`)
	metadataType = regexp.MustCompile(`/Type\s*/Metadata\b`)
	lengthKey    = regexp.MustCompile(`^\s*(\d+)(?:\s+(\d+)\s+R)?`)
)

// decryptedCopy returns data decrypted with s: each object's strings and streams
// decrypted, the encryption dictionary and old cross-reference streams left out, and a
// new cross-reference stream listing the objects.
func decryptedCopy(data []byte, s *security) ([]byte, error) {
	headers := objectHeaders(data)
	offsets := objectOffsets(headers)
	type object struct {
		gen  int
		text []byte
	}
	objects := map[int]object{}
	pos := 0
	for _, h := range headers {
		num, gen := h.num, h.gen
		if h.start < pos || num <= 0 {
			continue // inside the last object's stream
		}
		text, end, keep := s.decryptObject(data, h.end, num, gen, offsets)
		pos = end
		if num == s.encryptObj || !keep {
			delete(objects, num)
			continue
		}
		objects[num] = object{gen, text}
	}
	if len(objects) == 0 {
		return nil, fmt.Errorf("%w: no objects found", ErrDamaged)
	}
	var out bytes.Buffer
	out.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	nums := make([]int, 0, len(objects))
	for num := range objects {
		nums = append(nums, num)
	}
	slices.Sort(nums)
	for _, num := range nums {
		fmt.Fprintf(&out, "%d %d obj\n", num, objects[num].gen)
		out.Write(objects[num].text)
		out.WriteString("\nendobj\n")
	}
	out.WriteString("trailer\n<<")
	for _, m := range trailerRef.FindAllSubmatch(trailerDicts(data), -1) {
		if string(m[1]) != "Encrypt" {
			fmt.Fprintf(&out, " /%s %s %s R", m[1], m[2], m[3])
		}
	}
	out.WriteString(" >>\n")
	fixed, ok := rebuiltXref(out.Bytes())
	if !ok {
		return nil, fmt.Errorf("%w: no catalogue found", ErrDamaged)
	}
	return fixed, nil
}

// decryptObject returns the text of object num, gen whose value starts at data[at] with
// its strings (and stream) decrypted, and where the object ends; keep is false for a
// cross-reference stream.
func (s *security) decryptObject(data []byte, at, num, gen int, offsets map[int]int) (text []byte, end int, keep bool) {
	var out bytes.Buffer
	l := &lexer{data: data, pos: at}
	depth := 0
	dictStart, dictEnd := -1, -1
	for {
		l.skipSpace()
		if l.pos >= len(data) {
			return out.Bytes(), l.pos, true
		}
		c := data[l.pos]
		switch {
		case c == '<' && l.pos+1 < len(data) && data[l.pos+1] == '<':
			if depth == 0 && dictStart < 0 {
				dictStart = out.Len()
			}
			depth++
			l.pos += 2
			out.WriteString("<<")
			continue
		case c == '>' && l.pos+1 < len(data) && data[l.pos+1] == '>':
			depth--
			l.pos += 2
			out.WriteString(">>")
			if depth == 0 && dictEnd < 0 {
				dictEnd = out.Len()
			}
			continue
		case c == '(' || c == '<':
			var raw string
			if c == '(' {
				raw = l.literal()
			} else {
				raw = l.hex()
			}
			plain := s.decrypt(s.strings, num, gen, []byte(raw))
			fmt.Fprintf(&out, "<%x>", plain)
			continue
		case c == '/':
			start := l.pos
			l.name()
			out.Write(data[start:l.pos])
			out.WriteByte(' ')
			continue
		}
		start := l.pos
		w := l.word()
		switch w {
		case "endobj":
			return out.Bytes(), l.pos, true
		case "obj":
			// the next object's header: this one lacked its endobj (out has its number)
			return out.Bytes(), start, true
		case "stream":
			if dictStart < 0 || dictEnd < 0 {
				return out.Bytes(), l.pos, true
			}
			dict := out.Bytes()[dictStart:dictEnd]
			body, after := streamBody(data, l.pos, dict, offsets)
			if xrefType.Match(dict) {
				return nil, after, false
			}
			head := out.Bytes()[:dictEnd]
			if m, own := s.streamCrypt(dict); own {
				// the stream's own /Crypt filter: decrypted as it names, and taken off
				body = s.decrypt(m, num, gen, body)
				head = withoutCrypt(head, dictStart)
			} else if s.encryptMeta || !metadataType.Match(dict) {
				body = s.decrypt(s.streams, num, gen, body)
			}
			text := withLength(head, len(body))
			text = append(text, "\nstream\n"...)
			text = append(text, body...)
			text = append(text, "\nendstream"...)
			return text, after, true
		}
		out.Write(data[start:l.pos])
		out.WriteByte(' ')
	}
}

// hasCryptFilter reports whether a stream of data names a /Crypt filter of its own (not
// the /CryptFilter type of the encryption dictionary's filters).
func hasCryptFilter(data []byte) bool {
	for i := 0; ; {
		j := bytes.Index(data[i:], []byte("/Crypt"))
		if j < 0 {
			return false
		}
		i += j + len("/Crypt")
		if i >= len(data) || !isRegular(data[i]) {
			return true
		}
	}
}

// isRegular reports whether c may stand inside a name (not white space or a delimiter).
func isRegular(c byte) bool {
	return !bytes.ContainsRune([]byte(" \t\r\n\f\x00()<>[]{}/%"), rune(c))
}

// streamCrypt is the method of a stream's own /Crypt filter (the first of its filters,
// ISO 32000-1 §7.6.5), by the crypt filter its /DecodeParms /Name gives (Identity when
// none); own is false when the stream has none.
func (s *security) streamCrypt(dict []byte) (m cryptMethod, own bool) {
	var d operand
	if _, isOp, ok := (&lexer{data: dict}).nextShallow(&d); !ok || isOp || d.kind != kDict {
		return cryptNone, false
	}
	f, params := dictGet(d, "Filter"), dictGet(d, "DecodeParms")
	if f.kind == kArray && len(f.arr) > 0 {
		f = f.arr[0]
		if params.kind == kArray && len(params.arr) > 0 {
			params = params.arr[0]
		}
	}
	if f.kind != kName || f.str != "Crypt" {
		return cryptNone, false
	}
	return filterMethod(s.cf, dictGet(params, "Name").str), true
}

// cryptFilterFirst matches a /Crypt filter, alone or first of an array, and
// cryptParamsKey the key of its parameters.
var (
	cryptFilterFirst = regexp.MustCompile(`/Filter\s*(?:/Crypt\b|\[\s*/Crypt\b)`)
	cryptParamsKey   = regexp.MustCompile(`/DecodeParms\s*`)
)

// withoutCrypt is the object text ending in a stream dictionary that starts at dictStart,
// with the /Crypt filter and its parameters taken off its /Filter and /DecodeParms.
func withoutCrypt(text []byte, dictStart int) []byte {
	out := bytes.Clone(text)
	dict := out[dictStart:]
	m := cryptFilterFirst.FindIndex(dict)
	if m == nil {
		return out
	}
	if bytes.Contains(dict[m[0]:m[1]], []byte("[")) {
		dict = slices.Delete(dict, m[1]-len("/Crypt"), m[1]) // [/Crypt /FlateDecode] → [ /FlateDecode]
	} else {
		dict = slices.Delete(dict, m[0], m[1]) // the key and its one filter
	}
	if p := cryptParamsKey.FindIndex(dict); p != nil {
		// the parameters' value, or the first of their array
		at := p[1]
		inArray := at < len(dict) && dict[at] == '['
		if inArray {
			at++
		}
		l := &lexer{data: dict, pos: at}
		l.skipSpace()
		from := l.pos
		var op operand
		l.nextShallow(&op)
		if inArray {
			dict = slices.Delete(dict, from, l.pos)
		} else {
			dict = slices.Delete(dict, p[0], l.pos)
		}
	}
	return append(out[:dictStart], dict...)
}

// withLength is the object text ending in a stream dictionary with its /Length (given
// as a number or a reference) replaced by n.
func withLength(text []byte, n int) []byte {
	out := bytes.Clone(text)
	if i := bytes.Index(out, []byte("/Length ")); i >= 0 {
		if m := lengthKey.FindIndex(out[i+len("/Length "):]); m != nil {
			out = append(out[:i], out[i+len("/Length ")+m[1]:]...)
		}
	}
	i := bytes.Index(out, []byte("<<"))
	return slices.Insert(out, i+2, []byte(fmt.Sprintf(" /Length %d ", n))...)
}

// streamBody is the data of the stream whose keyword "stream" ends at data[at] and whose
// dictionary (as rewritten) is dict, by its /Length when that ends at "endstream", else up
// to the next "endstream"; after is past "endstream".
func streamBody(data []byte, at int, dict []byte, offsets map[int]int) (body []byte, after int) {
	if at < len(data) && data[at] == '\r' {
		at++
	}
	if at < len(data) && data[at] == '\n' {
		at++
	}
	length := -1
	if i := bytes.Index(dict, []byte("/Length ")); i >= 0 {
		if m := lengthKey.FindSubmatch(dict[i+len("/Length "):]); m != nil {
			n, _ := strconv.Atoi(string(m[1]))
			if m[2] == nil {
				length = n
			} else if off, ok := offsets[n]; ok {
				// an indirect length: the number after "N G obj"
				head := data[off:min(len(data), off+64)]
				if j := bytes.Index(head, []byte("obj")); j >= 0 {
					if v := lengthKey.FindSubmatch(head[j+3:]); v != nil && v[2] == nil {
						length, _ = strconv.Atoi(string(v[1]))
					}
				}
			}
		}
	}
	if length >= 0 && length <= len(data)-at {
		rest := bytes.TrimLeft(data[at+length:min(len(data), at+length+32)], " \r\n\t\f\x00")
		if bytes.HasPrefix(rest, []byte("endstream")) {
			end := at + length
			return data[at:end], end + bytes.Index(data[end:], []byte("endstream")) + len("endstream")
		}
	}
	e := bytes.Index(data[at:], []byte("endstream"))
	if e < 0 {
		return data[at:], len(data)
	}
	body = data[at : at+e]
	switch {
	case bytes.HasSuffix(body, []byte("\r\n")):
		body = body[:len(body)-2]
	case bytes.HasSuffix(body, []byte("\n")) || bytes.HasSuffix(body, []byte("\r")):
		body = body[:len(body)-1]
	}
	return body, at + e + len("endstream")
}
