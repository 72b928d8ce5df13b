package tokenizer

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// spModel is the part of a SentencePiece ModelProto (tokenizer.model) a tokenizer is built from.
type spModel struct {
	pieces         []spPiece
	modelType      int32 // 1 Unigram, 2 BPE, 3 word, 4 char
	byteFallback   bool
	unkID          int32
	unkPiece       string
	charsmap       []byte
	addDummyPrefix bool
	removeSpaces   bool
}

type spPiece struct {
	piece string
	score float32
	typ   int32 // 1 normal, 2 unknown, 3 control, 4 user defined, 5 unused, 6 byte
}

// protoReader walks protobuf wire format.
type protoReader struct {
	b   []byte
	err error
}

func (r *protoReader) varint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("truncated varint")
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

// next returns the next field: its number, wire type, and for length-delimited fields the
// bytes, for fixed32 the value in v, for varints v.
func (r *protoReader) next() (field int, wire int, v uint64, data []byte, ok bool) {
	if len(r.b) == 0 || r.err != nil {
		return 0, 0, 0, nil, false
	}
	key := r.varint()
	field, wire = int(key>>3), int(key&7)
	switch wire {
	case 0:
		v = r.varint()
	case 1:
		if len(r.b) < 8 {
			r.err = errors.New("truncated fixed64")
			return 0, 0, 0, nil, false
		}
		v, r.b = binary.LittleEndian.Uint64(r.b), r.b[8:]
	case 2:
		n := r.varint()
		if n > uint64(len(r.b)) {
			r.err = errors.New("truncated field")
			return 0, 0, 0, nil, false
		}
		data, r.b = r.b[:n], r.b[n:]
	case 5:
		if len(r.b) < 4 {
			r.err = errors.New("truncated fixed32")
			return 0, 0, 0, nil, false
		}
		v, r.b = uint64(binary.LittleEndian.Uint32(r.b)), r.b[4:]
	default:
		r.err = fmt.Errorf("unsupported wire type %d", wire)
		return 0, 0, 0, nil, false
	}
	return field, wire, v, data, r.err == nil
}

// parseSPModel reads a ModelProto: pieces (1), trainer_spec (2) and normalizer_spec (3).
func parseSPModel(data []byte) (*spModel, error) {
	m := &spModel{modelType: 1, unkPiece: "<unk>", addDummyPrefix: true, removeSpaces: true}
	r := &protoReader{b: data}
	for {
		field, wire, _, sub, ok := r.next()
		if !ok {
			break
		}
		if wire != 2 {
			continue
		}
		switch field {
		case 1:
			p := spPiece{typ: 1}
			pr := &protoReader{b: sub}
			for {
				f, w, v, d, ok := pr.next()
				if !ok {
					break
				}
				switch {
				case f == 1 && w == 2:
					p.piece = string(d)
				case f == 2 && w == 5:
					p.score = math.Float32frombits(uint32(v))
				case f == 3 && w == 0:
					p.typ = int32(v)
				}
			}
			if pr.err != nil {
				return nil, fmt.Errorf("piece %d: %w", len(m.pieces), pr.err)
			}
			m.pieces = append(m.pieces, p)
		case 2:
			tr := &protoReader{b: sub}
			for {
				f, w, v, d, ok := tr.next()
				if !ok {
					break
				}
				switch {
				case f == 3 && w == 0:
					m.modelType = int32(v)
				case f == 35 && w == 0:
					m.byteFallback = v != 0
				case f == 40 && w == 0:
					m.unkID = int32(v)
				case f == 45 && w == 2:
					m.unkPiece = string(d)
				}
			}
			if tr.err != nil {
				return nil, fmt.Errorf("trainer_spec: %w", tr.err)
			}
		case 3:
			nr := &protoReader{b: sub}
			for {
				f, w, v, d, ok := nr.next()
				if !ok {
					break
				}
				switch {
				case f == 2 && w == 2:
					m.charsmap = d
				case f == 3 && w == 0:
					m.addDummyPrefix = v != 0
				case f == 4 && w == 0:
					m.removeSpaces = v != 0
				}
			}
			if nr.err != nil {
				return nil, fmt.Errorf("normalizer_spec: %w", nr.err)
			}
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(m.pieces) == 0 {
		return nil, errors.New("no pieces: not a SentencePiece model")
	}
	for _, p := range m.pieces {
		if !utf8.ValidString(p.piece) {
			return nil, fmt.Errorf("piece %q is not UTF-8", p.piece)
		}
	}
	return m, nil
}

// loadSentencePiece builds the tokenizer transformers' converters make from a tokenizer.model
// (convert_slow_tokenizer: LlamaConverter for BPE models, SpmConverter for Unigram ones):
// BPE with byte fallback, unk fused, merges from the pieces (every split of a piece into two
// pieces, ranked by the piece's score); the legacy normalizer Prepend("▁") + Replace(" ", "▁")
// (or Metaspace "first" when tokenizer_config.json says legacy false); BOS before the text
// unless add_bos_token is false, EOS after when add_eos_token is true; the decoder Replace,
// ByteFallback, Fuse, Strip. The first three pieces and the config's added tokens are added
// tokens.
func loadSentencePiece(file string) (*Pipeline, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	sp, err := parseSPModel(data)
	if err != nil {
		return nil, fmt.Errorf("tokenizer.model: %w", err)
	}
	cfg, err := readSlowConfig(filepath.Dir(file))
	if err != nil {
		return nil, err
	}
	t := &Pipeline{}
	const meta = "\u2581"
	legacy := cfg.Legacy == nil || *cfg.Legacy
	switch sp.modelType {
	case 2: // BPE: LlamaConverter
		if !sp.addDummyPrefix {
			// Gemma's models: transformers converts them with a converter of their own (no
			// dummy prefix, user-defined pieces as added tokens), not Llama's.
			return nil, unsupported("SentencePiece BPE model without add_dummy_prefix (Gemma style): use its tokenizer.json")
		}
		vocab := make(map[string]int32, len(sp.pieces))
		for i, p := range sp.pieces {
			vocab[p.piece] = int32(i)
		}
		mc := &component{kind: "model", Type: "BPE", fields: map[string]json.RawMessage{
			"unk_token": jsonQuote(sp.unkPiece), "fuse_unk": json.RawMessage("true"), "byte_fallback": json.RawMessage("true")}}
		if t.model, err = newBPE(mc, vocabFromMap(vocab), &mergeList{pairs: spMerges(sp.pieces, vocab)}, false); err != nil {
			return nil, err
		}
		if legacy {
			t.norm = normalizer{prependStep{meta}, replaceStep{literal: " ", content: meta}}
		} else {
			t.pre = preTokenizer{steps: []preStep{metaspace{replacement: meta, scheme: prependFirst}}}
		}
		t.dec = decoder{steps: []decodeStep{{kind: decReplace, from: meta, to: " "}, {kind: decByteFallback},
			{kind: decFuse}, {kind: decStrip, content: ' ', start: 1}}}
	case 1: // Unigram: SpmConverter
		pieces := make([]scoredPiece, len(sp.pieces))
		for i, p := range sp.pieces {
			// As the score reaches the reference: written to tokenizer.json in its shortest
			// form, read back by its JSON parser (not always the same float64: ties move).
			score, _ := serdeFloat(strconv.FormatFloat(float64(p.score), 'g', -1, 64))
			pieces[i] = scoredPiece{p.piece, score}
		}
		// As the converter reads it: trainer_spec's unk_id (0 when the field is absent), not the
		// piece typed UNKNOWN.
		unk := sp.unkID
		// The converter leaves byte_fallback off for Unigram models.
		mc := &component{kind: "model", Type: "Unigram", fields: map[string]json.RawMessage{
			"unk_id": json.RawMessage(fmt.Sprint(unk))}}
		if t.model, err = newUnigram(mc, pieces, false); err != nil {
			return nil, err
		}
		re, _ := compilePattern(" {2,}")
		t.norm = normalizer{stripStep{right: true}, replaceStep{re: re, content: meta}}
		if len(sp.charsmap) > 0 {
			cm, err := newCharsmap(sp.charsmap)
			if err != nil {
				return nil, err
			}
			t.norm = append(normalizer{cm}, t.norm...)
		}
		scheme := prependAlways
		if !sp.addDummyPrefix {
			scheme = prependNever
		} else if !legacy {
			scheme = prependFirst
		}
		t.pre = preTokenizer{steps: []preStep{metaspace{replacement: meta, scheme: scheme, splits: true}}}
		t.dec = decoder{steps: []decodeStep{{kind: decMetaspace, from: meta, scheme: scheme}}}
	default:
		return nil, unsupported("SentencePiece model type %d (only BPE and Unigram)", sp.modelType)
	}
	voc := t.model.vocab()
	addBOS, addEOS := cfg.AddBOS == nil || *cfg.AddBOS, cfg.AddEOS != nil && *cfg.AddEOS
	eos := cfg.eos
	if cfg.t5Family() {
		// T5Converter: "$A </s>" and "$A </s> $B </s>", every type id 0, whatever the config
		// says of BOS and EOS.
		addBOS, addEOS, eos = false, true, "</s>"
	}
	var single []templatePiece
	if id := voc.lookup(cfg.bos); addBOS && id >= 0 {
		single = append(single, templatePiece{seq: -1, ids: []int{int(id)}})
	}
	single = append(single, templatePiece{seq: 0})
	if id := voc.lookup(eos); addEOS && id >= 0 {
		single = append(single, templatePiece{seq: -1, ids: []int{int(id)}})
	}
	if len(single) > 1 {
		pair := append(append([]templatePiece{}, single...), single...)
		for i := len(single); i < len(pair); i++ {
			if !cfg.t5Family() {
				pair[i].typeID = 1
			}
			if pair[i].seq == 0 {
				pair[i].seq = 1
			}
		}
		t.post.steps = []postStep{{kind: "TemplateProcessing", single: single, pair: pair}}
	}
	var added []addedTokenJSON
	for i := 0; i < min(3, len(sp.pieces)); i++ {
		added = append(added, addedTokenJSON{ID: i, Content: sp.pieces[i].piece, Special: true})
	}
	added = append(added, cfg.added...)
	if cfg.t5Family() && !slices.ContainsFunc(cfg.added, func(a addedTokenJSON) bool { return strings.HasPrefix(a.Content, "<extra_id_") }) {
		// T5Tokenizer's sentinels, when the config does not list them: <extra_id_99> …
		// <extra_id_0> after the pieces (extra_ids, default 100).
		n := 100
		if cfg.ExtraIDs != nil {
			n = *cfg.ExtraIDs
		}
		for i := n - 1; i >= 0; i-- {
			added = append(added, addedTokenJSON{Content: fmt.Sprintf("<extra_id_%d>", i), Special: true})
		}
	}
	initClasses()
	t.finish(added)
	return t, nil
}

func jsonQuote(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// spMerges derives BPE merges from SentencePiece pieces as transformers' extractor does: every
// split of a piece into two pieces (by character), within a piece ordered by the two halves'
// ids, all ordered by the merged piece's score, highest first (a stable sort).
func spMerges(pieces []spPiece, vocab map[string]int32) []mergePair {
	type cand struct {
		l, r  string
		score float32
		li    int32
		ri    int32
	}
	var all []cand
	seen := map[string]bool{}
	for _, p := range pieces {
		if seen[p.piece] { // a dict in the extractor: the last score of a duplicate piece wins
			continue
		}
		seen[p.piece] = true
		var local []cand
		for i := range p.piece {
			if i == 0 {
				continue
			}
			l, r := p.piece[:i], p.piece[i:]
			li, okL := vocab[l]
			ri, okR := vocab[r]
			if okL && okR {
				local = append(local, cand{l, r, p.score, li, ri})
			}
		}
		sort.SliceStable(local, func(i, j int) bool {
			if local[i].li != local[j].li {
				return local[i].li < local[j].li
			}
			return local[i].ri < local[j].ri
		})
		all = append(all, local...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	merges := make([]mergePair, len(all))
	for i, c := range all {
		merges[i] = mergePair{[]byte(c.l), []byte(c.r)}
	}
	return merges
}
