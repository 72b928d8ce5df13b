package documents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"edgechat/documents/extract"
	"edgechat/documents/index"
	"edgechat/reply"
)

// Doc is an attached file, read and indexed.
type Doc struct {
	Name  string
	Index *index.Index
	// Sections is the whole text, kept when the file is small enough to be given whole.
	Sections []extract.Section
	// Vectors are the chunks' embeddings by the library's Embedder (nil without one);
	// VectorsBy is its Identity.
	Vectors   *Vectors
	VectorsBy string
	// Note tells the person what of the file was left unread and how to have it read (a
	// PDF's scanned pages, text recognition being off); "" when all of it was read.
	Note string
	// scans is the generation of the library's Scans it was read under (SetScans).
	scans int
}

// WholeBytes bounds the documents whose whole text is kept for the fit-whole case: more
// than any context this app runs (8,192 tokens ≈ 32 KB of English) can hold.
const WholeBytes = 256 << 10

// Library reads and indexes attachments and keeps the last few in memory. Indexes are
// built on the calling goroutine (callers run it off the UI's), saved to each attachment's
// IndexPath and loaded from there next time. It is safe for concurrent use.
type Library struct {
	mu    sync.Mutex
	cache map[string]*cached // by Path
	clock int
	// busy serialises opening the same file twice at once.
	busy map[string]chan struct{}

	// The embedding model of the current SetEmbedder, opened on first use. embMu guards the
	// pointer only: opening a model takes seconds, and SetEmbedder may be called from the UI
	// goroutine meanwhile.
	embMu sync.Mutex
	emb   *modelSlot[Embedder]
	// rr is the reranker of the current SetReranker (embMu guards the pointer too).
	rr *modelSlot[Reranker]
	// jobs are the documents being embedded, by Path.
	jobs map[string]*embedJob
	// bg bounds embeddings started for questions that do not wait; Close cancels it.
	bg     context.Context
	stopBG context.CancelFunc
	// scans is SetScans' (scans.go), scansGen counts its calls; mu guards them.
	scans    func() Scans
	scansGen int
}

// embedJob is one document being embedded: progress for questions that do not wait, and
// done closed at the end.
type embedJob struct {
	done        chan struct{}
	mu          sync.Mutex
	made, total int
}

func (j *embedJob) progress() (int, int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.made, j.total
}

type cached struct {
	stamp index.Stamp
	doc   *Doc
	used  int
}

// keep is how many documents stay in memory.
const keep = 16

// NewLibrary returns an empty library.
func NewLibrary() *Library {
	bg, stop := context.WithCancel(context.Background())
	return &Library{cache: map[string]*cached{}, busy: map[string]chan struct{}{}, jobs: map[string]*embedJob{}, bg: bg, stopBG: stop}
}

// modelSlot is one SetEmbedder's or SetReranker's model, opened once.
type modelSlot[T any] struct {
	once sync.Once
	open func() (T, error)
	m    T
	err  error
	warn string // logged when it cannot be opened
}

func (s *modelSlot[T]) get() (T, error) {
	s.once.Do(func() {
		s.m, s.err = s.open()
		if s.err != nil {
			slog.Warn(s.warn, "err", s.err)
		}
	})
	return s.m, s.err
}

// swapSlot puts a slot for open (nil: none) in *cur under mu and closes the model of the slot
// it replaces (when it is an io.Closer) once any opening of it under way is over.
func swapSlot[T any](mu *sync.Mutex, cur **modelSlot[T], open func() (T, error), warn string) {
	var slot *modelSlot[T]
	if open != nil {
		slot = &modelSlot[T]{open: open, warn: warn}
	}
	mu.Lock()
	old := *cur
	*cur = slot
	mu.Unlock()
	if old != nil {
		go func() {
			old.once.Do(func() {}) // waits for an opening under way; never opens
			if c, ok := any(old.m).(io.Closer); ok {
				c.Close()
			}
		}()
	}
}

// slotModel returns the model of *cur, opening it on first use (zero, nil without one).
func slotModel[T any](mu *sync.Mutex, cur **modelSlot[T]) (T, error) {
	mu.Lock()
	slot := *cur
	mu.Unlock()
	if slot == nil {
		var zero T
		return zero, nil
	}
	return slot.get()
}

// SetEmbedder sets how the library gets its embedding model: open is called once, when a
// document first needs vectors (on that caller's goroutine, never the UI's); nil ranks by
// keywords only. It returns at once; the model set before is closed (when it is an
// io.Closer) once any opening or run of it under way is over.
func (l *Library) SetEmbedder(open func() (Embedder, error)) {
	swapSlot(&l.embMu, &l.emb, open, "the embedding model cannot be used; ranking by keywords only")
}

// Embedder returns the library's embedding model, opening it on first use: nil, nil when
// there is none; nil and the reason when it cannot be opened (then it is not tried again
// until SetEmbedder).
func (l *Library) Embedder() (Embedder, error) { return slotModel(&l.embMu, &l.emb) }

// SetReranker sets how the library gets its reranker, as SetEmbedder does for the embedding
// model: open is called once, when a question first has passages to re-rank; nil keeps the
// first ranking.
func (l *Library) SetReranker(open func() (Reranker, error)) {
	swapSlot(&l.embMu, &l.rr, open, "the reranker cannot be used; passages keep their first ranking")
}

// Reranker returns the library's reranker, opening it on first use: nil, nil when there is
// none; nil and the reason when it cannot be opened.
func (l *Library) Reranker() (Reranker, error) { return slotModel(&l.embMu, &l.rr) }

// Close stops the embeddings running in the background and closes the embedding model and
// the reranker.
func (l *Library) Close() {
	l.stopBG()
	l.SetEmbedder(nil)
	l.SetReranker(nil)
}

// Status reports progress as a sentence ("Reading report.pdf: page 12 of 300").
type Status func(msg string)

// Open returns the document of a, from memory, from its saved index, or by reading and
// indexing the file (reporting progress to status, which may be nil), with the vectors of
// the library's embedding model: loaded, or made now (waiting for them when another
// goroutine is making them). When the model cannot be used it returns the document and an
// error wrapping ErrNoEmbedding.
func (l *Library) Open(ctx context.Context, a reply.Attachment, status Status) (*Doc, error) {
	return l.open(ctx, a, status, true)
}

// OpenNow is Open for a question that should not wait for vectors: a document whose vectors
// are being made comes without them, and one that has none starts them in the background.
// Embedding reports how far that is (made, total chunks; 0, 0 when nothing is under way).
func (l *Library) OpenNow(ctx context.Context, a reply.Attachment, status Status) (*Doc, error) {
	return l.open(ctx, a, status, false)
}

// Embedding reports how many chunks of a's document are embedded of how many, while that
// is under way (0, 0 otherwise).
func (l *Library) Embedding(a reply.Attachment) (made, total int) {
	l.mu.Lock()
	j := l.jobs[a.Path]
	l.mu.Unlock()
	if j == nil {
		return 0, 0
	}
	return j.progress()
}

func (l *Library) open(ctx context.Context, a reply.Attachment, status Status, wait bool) (*Doc, error) {
	if status == nil {
		status = func(string) {}
	}
	st, d, err := l.readClaimed(ctx, a, status)
	if err != nil {
		return nil, err
	}
	return l.embed(ctx, a, st, d, status, wait)
}

// readClaimed reads a while no other goroutine reads the same file.
func (l *Library) readClaimed(ctx context.Context, a reply.Attachment, status Status) (index.Stamp, *Doc, error) {
	release, err := l.claim(ctx, a.Path, func() { status(fmt.Sprintf("Waiting for %s to be read…", a.Name)) })
	if err != nil {
		return index.Stamp{}, nil, err
	}
	defer release()
	st, err := index.StampOf(a.Path)
	if err != nil {
		return st, nil, &extract.Unreadable{File: a.Name, Err: extract.ErrMissing, Advice: "remove it and attach it again"}
	}
	d, err := l.read(ctx, a, st, status)
	return st, d, err
}

// read returns the document of a from memory, its saved index or the file itself.
func (l *Library) read(ctx context.Context, a reply.Attachment, st index.Stamp, status Status) (*Doc, error) {
	if d := l.cached(a.Path, st); d != nil {
		return d, nil
	}
	if a.IndexPath != "" {
		ix, err := index.Load(a.IndexPath, st)
		switch {
		case err == nil:
			if d := l.loaded(a, ix); d != nil { // scans.go
				return l.store(a, st, d), nil
			}
		case !errors.Is(err, os.ErrNotExist) && !errors.Is(err, index.ErrStale):
			slog.Warn("rebuilding a damaged document index", "path", a.IndexPath, "err", err)
		}
	}
	l.mu.Lock()
	gen := l.scansGen
	l.mu.Unlock()
	doc, err := extract.File(ctx, a.Path, func(done, total int) {
		if done%10 == 0 || done == total {
			status(fmt.Sprintf("Reading %s: page %d of %d", a.Name, done, total))
		}
	})
	if extract.IsScan(err) {
		doc, err = l.readScan(ctx, a, err, status) // scans.go
	}
	if err != nil {
		return nil, err
	}
	var unread []int
	note := ""
	if len(doc.Scanned) > 0 {
		if unread, note, err = l.readScannedPages(ctx, a, doc, status); err != nil { // scans.go
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ix, err := index.Build(ctx, index.Split(doc.Sections, index.ChunkBytes, index.OverlapBytes), func(done, total int) {
		status(fmt.Sprintf("Indexing %s: %d%%", a.Name, done*100/max(total, 1)))
	})
	if err != nil {
		return nil, err
	}
	if doc.Len() <= WholeBytes {
		ix.Sections = doc.Sections
	}
	ix.Unread = unread
	if _, err := os.Stat(a.Path); err == nil && a.IndexPath != "" { // not removed meanwhile
		if err := ix.Save(a.IndexPath, st); err != nil {
			slog.Warn("could not save a document index; it will be rebuilt next time", "path", a.IndexPath, "err", err)
		}
	}
	return l.store(a, st, &Doc{Name: a.Name, Index: ix, Sections: ix.Sections, Note: note, scans: gen}), nil
}

// ErrNoEmbedding wraps the reason a document got no vectors (the embedding model cannot be
// opened or failed); the document is still ranked by keywords.
var ErrNoEmbedding = errors.New("ranking by keywords only")

// embed gives d the vectors of the library's embedding model: from memory, from the file
// saved beside the index, or by embedding every chunk (reporting progress) and saving them.
// One goroutine embeds a document at a time: with wait, the others wait for it (or, when it
// gave up, make them themselves); without, they go on without vectors, and the first starts
// the embedding in the background. Without a model it returns d as it is; when the model
// fails it returns d and an error wrapping ErrNoEmbedding.
func (l *Library) embed(ctx context.Context, a reply.Attachment, st index.Stamp, d *Doc, status Status, wait bool) (*Doc, error) {
	for {
		emb, err := l.Embedder()
		if err != nil {
			return d, fmt.Errorf("%w: the embedding model cannot be used: %v", ErrNoEmbedding, err)
		}
		if emb == nil || d.VectorsBy == emb.Identity() {
			return d, nil
		}
		if a.IndexPath != "" {
			vecPath := VectorsPath(a.IndexPath)
			if vecs, err := loadVectors(vecPath, emb.Identity(), st, len(d.Index.Chunks)); err == nil {
				return l.withVectors(a, st, d, vecs, emb.Identity()), nil
			} else if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, errOtherVectors) {
				slog.Warn("embedding a document again: its saved vectors are damaged", "path", vecPath, "err", err)
			}
		}
		l.mu.Lock()
		job, running := l.jobs[a.Path]
		if !running {
			job = &embedJob{done: make(chan struct{}), total: len(d.Index.Chunks)}
			l.jobs[a.Path] = job
		}
		l.mu.Unlock()
		switch {
		case !running && wait:
			return l.makeVectors(ctx, a, st, d, emb, job, status)
		case !running:
			go func() {
				if _, err := l.makeVectors(l.bg, a, st, d, emb, job, func(string) {}); err != nil {
					slog.Warn("could not embed a document; its questions are ranked by keywords", "file", a.Name, "err", err)
				}
			}()
			return d, nil
		case !wait:
			return d, nil
		}
		status(fmt.Sprintf("Waiting for %s to be embedded…", a.Name))
		select {
		case <-job.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if c := l.cached(a.Path, st); c != nil {
			d = c
		}
		// Once more: the vectors are in memory now, or whoever made them gave up.
	}
}

// makeVectors embeds every chunk of d for job, saves the vectors and stores d with them.
func (l *Library) makeVectors(ctx context.Context, a reply.Attachment, st index.Stamp, d *Doc, emb Embedder, job *embedJob, status Status) (*Doc, error) {
	defer func() {
		l.mu.Lock()
		delete(l.jobs, a.Path)
		l.mu.Unlock()
		close(job.done)
	}()
	texts := make([]string, len(d.Index.Chunks))
	for i, c := range d.Index.Chunks {
		texts[i] = c.Text
	}
	status(fmt.Sprintf("Embedding %s: 0%%", a.Name))
	made, err := emb.EmbedPassages(ctx, texts, func(done, total int) {
		job.mu.Lock()
		job.made, job.total = done, total
		job.mu.Unlock()
		status(fmt.Sprintf("Embedding %s: %d%%", a.Name, done*100/max(total, 1)))
	})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return d, fmt.Errorf("%w: the embedding model failed on %s: %v", ErrNoEmbedding, a.Name, err)
	}
	vecs, err := Quantize(made)
	if err == nil && vecs.Len() != len(texts) {
		err = fmt.Errorf("%d vectors for %d passages", vecs.Len(), len(texts))
	}
	if err != nil {
		return d, fmt.Errorf("%w: the embedding model failed on %s: %v", ErrNoEmbedding, a.Name, err)
	}
	if _, err := os.Stat(a.Path); err == nil && a.IndexPath != "" { // not removed meanwhile
		if err := saveVectors(VectorsPath(a.IndexPath), emb.Identity(), st, vecs); err != nil {
			slog.Warn("could not save a document's vectors; they will be made again next time", "path", a.IndexPath, "err", err)
		}
	}
	return l.withVectors(a, st, d, vecs, emb.Identity()), nil
}

// withVectors stores a copy of d with vecs (d may be in use by another question).
func (l *Library) withVectors(a reply.Attachment, st index.Stamp, d *Doc, vecs *Vectors, id string) *Doc {
	c := *d
	c.Vectors, c.VectorsBy = vecs, id
	return l.store(a, st, &c)
}

// claim waits until no other goroutine is opening path (calling waiting first), then marks
// it busy.
func (l *Library) claim(ctx context.Context, path string, waiting func()) (func(), error) {
	for {
		l.mu.Lock()
		ch, busy := l.busy[path]
		if !busy {
			ch = make(chan struct{})
			l.busy[path] = ch
			l.mu.Unlock()
			return func() {
				l.mu.Lock()
				delete(l.busy, path)
				l.mu.Unlock()
				close(ch)
			}, nil
		}
		l.mu.Unlock()
		waiting()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (l *Library) cached(path string, st index.Stamp) *Doc {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.cache[path]
	if c == nil || c.stamp != st || len(c.doc.Index.Unread) > 0 && c.doc.scans != l.scansGen {
		return nil // changed, or scanned pages left unread under other Scans
	}
	l.clock++
	c.used = l.clock
	return c.doc
}

func (l *Library) store(a reply.Attachment, st index.Stamp, d *Doc) *Doc {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clock++
	l.cache[a.Path] = &cached{stamp: st, doc: d, used: l.clock}
	for len(l.cache) > keep {
		oldest := ""
		for p, c := range l.cache {
			if oldest == "" || c.used < l.cache[oldest].used {
				oldest = p
			}
		}
		delete(l.cache, oldest)
	}
	return d
}

// Forget drops path from memory (its file was removed).
func (l *Library) Forget(path string) {
	l.mu.Lock()
	delete(l.cache, path)
	l.mu.Unlock()
}
