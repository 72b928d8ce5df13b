package pdftext

import "strings"

// Files the object reader rejects for a fault of their syntax that pdftotext passes over: a
// copy without the fault is opened through rebuiltXref's scan (the offsets move), for the
// whole document when it could not be opened, or for the pages lost to the fault.

// syntaxRepair is one such fault: the object reader's complaint and the copy without it.
type syntaxRepair struct {
	complaint string
	fix       func([]byte) ([]byte, bool)
}

var syntaxRepairs = []syntaxRepair{
	{"stream keyword not followed by newline", withStreamLineEnds},   // streameol.go
	{"missing endobj after indirect object definition", withEndobjs}, // endobj.go
	{"invalid escape sequence", withoutUnknownEscapes},               // escapes.go
	{"malformed hex string", withEvenHexStrings},                     // escapes.go
	{"unknown filter", withFullFilterNames},                          // filternames.go
	{"unexpected keyword", asScanned},                                // xrefoffsets.go
	{"unexpected non-name key", withKeyValues},                       // keyvalues.go
}

// repairFor is the repair of the fault err names, if any.
func repairFor(err error) (syntaxRepair, bool) {
	if err == nil {
		return syntaxRepair{}, false
	}
	for _, f := range syntaxRepairs {
		if strings.Contains(err.Error(), f.complaint) {
			return f, true
		}
	}
	return syntaxRepair{}, false
}

// repairedOpen opens a copy of data without the fault.
func (f syntaxRepair) repairedOpen(data []byte, opt Options) (*reader, []pageRef, bool) {
	plain, ok := f.fix(data)
	if !ok {
		return nil, nil, false
	}
	fixed, ok := rebuiltXref(plain)
	if !ok {
		return nil, nil, false
	}
	r, list, err := open(fixed, opt)
	return r, list, err == nil && len(list) > 0
}

// rereadPages reads again each page lost to a fault of syntaxRepairs, from a copy of data
// without it (one copy for each fault); the copy must list as many pages.
func rereadPages(data []byte, opt Options, list []pageRef, pages []Page) error {
	readers := map[string]*reader{}
	lists := map[string][]pageRef{}
	for i := range pages {
		f, ok := repairFor(pages[i].Err)
		if !ok {
			continue
		}
		r, tried := readers[f.complaint]
		if !tried {
			r2, again, ok := f.repairedOpen(data, opt)
			if !ok || len(again) != len(list) {
				r2 = nil
			}
			readers[f.complaint], lists[f.complaint], r = r2, again, r2
		}
		if r == nil {
			continue
		}
		if err := r.alive(); err != nil {
			return err
		}
		r.imgs = imagePage{page: i + 1, pages: len(list)}
		text, cover, err := r.page(lists[f.complaint][i])
		if err != nil && fatal(err) {
			return err
		}
		if err != nil {
			continue
		}
		pages[i].Text, pages[i].ImageCover, pages[i].Err = text, cover, nil
		if opt.Text != nil {
			if err := opt.Text(len(text)); err != nil {
				return err
			}
		}
	}
	return nil
}

// rewrite makes a repair's copy of data, with bytes cut out or written in from left to
// right; data is not copied unless something changes.
type rewrite struct {
	data, out []byte
	kept      int  // data[:kept] is in out
	changed   bool // out holds the copy so far
}

// cut leaves data[from:to] out of the copy.
func (w *rewrite) cut(from, to int) {
	w.out = append(w.out, w.data[w.kept:from]...)
	w.kept, w.changed = to, true
}

// insert writes text into the copy before data[at].
func (w *rewrite) insert(at int, text string) {
	w.out = append(append(w.out, w.data[w.kept:at]...), text...)
	w.kept, w.changed = at, true
}

// result is the copy, and whether it differs from data.
func (w *rewrite) result() ([]byte, bool) {
	if !w.changed {
		return w.data, false
	}
	return append(w.out, w.data[w.kept:]...), true
}
