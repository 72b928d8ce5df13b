package extract

import "bytes"

// errCutOff is a file that cannot be read and whose end is missing: a PDF without the
// "%%EOF" that ends every PDF, a zip-packed document (DOCX, ODT, EPUB) without its closing
// directory. A download or a copy that did not finish leaves files so; saving it again in
// its program, the advice for other damage, cannot help. ErrCorrupt.
type errCutOff struct{}

func (errCutOff) Error() string {
	return "it is damaged: its end is cut off, as a download or a copy that did not finish leaves a file"
}
func (errCutOff) Is(target error) bool { return target == ErrCorrupt }
func (errCutOff) advice() string {
	return "download or copy it again and let it finish, then attach the new copy"
}

// tailBytes is how far from a file's end its closing mark is looked for: readers allow
// trailing bytes after a PDF's %%EOF (1 KB, as poppler), a zip's comment runs up to 64 KB.
const tailBytes = 1024

// cutOff reports whether data, a file of kind ("pdf" or "zip") that could not be read,
// lacks the mark that ends every whole file of that kind.
func cutOff(kind string, data []byte) bool {
	switch kind {
	case "pdf":
		return !bytes.Contains(data[max(0, len(data)-tailBytes):], []byte("%%EOF"))
	case "zip":
		// the end of central directory record, 22 bytes from its signature, and after it
		// a comment of up to 65,535 bytes
		tail := data[max(0, len(data)-22-65535):]
		i := bytes.LastIndex(tail, []byte("PK\x05\x06"))
		return i < 0 || i+22 > len(tail)
	}
	return false
}
