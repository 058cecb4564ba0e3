package catalog

import (
	"slices"
	"sync"
)

// VectorEntry is what a replica keeps in memory about one Servico for the
// current schema version: its change_seq (to detect missed changes), whether
// public search may return it, its filter members and its embedding.
type VectorEntry struct {
	ID          string
	Seq         int64
	Published   bool
	AgentOnly   bool
	TemaGeral   string
	OrgaoGestor []string
	// Embedding is nil while the document is missing or pending.
	Embedding []float32
	// Lexemes are those of the document's tsvector, each with its best
	// weight; none while the document is missing.
	Lexemes []DocLexeme
}

// Fingerprint summarizes the catalog a vector index reflects: the version,
// the number of Servicos and the sum of their change_seq. Any create, update
// or delete changes it, so comparing it with the database's catches a lost
// change notification.
type Fingerprint struct {
	Version string
	Count   int64
	SeqSum  int64
}

// vectorMeta holds the filter members of one searchable slot.
type vectorMeta struct {
	agentOnly   bool
	temaGeral   string
	orgaoGestor []string
}

// VectorIndex holds the embeddings of the published Servicos of one schema
// version in one contiguous slab, so a query is a cache-friendly scan of dot
// products (the vectors are L2-normalized, so the dot product is the cosine),
// and beside it their codes of one byte per dimension, a quarter of the
// slab, which a query scans first (see Nearest). It is safe for concurrent
// use: searches share a read lock.
type VectorIndex struct {
	mu      sync.RWMutex
	version string
	dims    int
	seqs    map[string]int64 // every Servico, searchable or not
	seqSum  int64
	slot    map[string]int // searchable Servico → slot
	ids     []string
	meta    []vectorMeta
	vecs    []float32
	// codes holds each slot's vector quantized (quantize), with its
	// scale and the norm of what quantizing lost.
	codes  []int8
	scales []float32
	losses []float32
	// cols holds the same codes by dimension: dimension j of slot i at
	// cols[j*colCap+i], so a query with few nonzero dimensions (a lexical
	// embedding's) reads only their columns (see Nearest).
	cols   []int8
	colCap int
	// lex holds the lexemes of every published Servico, with or without
	// an embedding, for keyword candidates.
	lex lexicalIndex
}

// NewVectorIndex returns an empty index that reflects no version yet.
func NewVectorIndex() *VectorIndex {
	ix := &VectorIndex{seqs: map[string]int64{}, slot: map[string]int{}}
	ix.lex.reset(0)
	return ix
}

// KeywordCandidates returns, when the index holds version, the n published
// Servicos f admits that best match terms by a cheap score (the best
// weight of each matched word, summed, as ts_rank weighs fields; ties by
// id), and how many f admits match (every term when every is set, else
// any). ok is false when the index holds another version.
func (ix *VectorIndex) KeywordCandidates(version string, terms []Match, every bool, f SearchFilter, n int) (ids []string, total int, ok bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if version == "" || version != ix.version || n <= 0 {
		return nil, 0, false
	}
	ids, total = ix.lex.candidates(terms, every, f, n)
	return ids, total, true
}

// Version returns the schema version the index holds ("" before the first load).
func (ix *VectorIndex) Version() string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.version
}

// Fingerprint summarizes what the index holds.
func (ix *VectorIndex) Fingerprint() Fingerprint {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return Fingerprint{Version: ix.version, Count: int64(len(ix.seqs)), SeqSum: ix.seqSum}
}

// Len returns the number of searchable vectors.
func (ix *VectorIndex) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.ids)
}

// Replace swaps the whole content for entries of version, whose vectors
// have dims dimensions.
func (ix *VectorIndex) Replace(version string, dims int, entries []VectorEntry) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.version, ix.dims, ix.seqSum = version, dims, 0
	ix.seqs = make(map[string]int64, len(entries))
	ix.slot = make(map[string]int, len(entries))
	ix.ids, ix.meta, ix.vecs = ix.ids[:0], ix.meta[:0], make([]float32, 0, len(entries)*dims)
	ix.codes, ix.scales, ix.losses = make([]int8, 0, len(entries)*dims), ix.scales[:0], ix.losses[:0]
	ix.colCap = len(entries)
	ix.cols = make([]int8, dims*ix.colCap)
	ix.lex.reset(len(entries))
	for _, e := range entries {
		ix.set(e, true)
	}
	ix.lex.sortLexemes()
}

// Apply updates the entries of a targeted reload: entries are the current
// state of the Servicos read, and every id of gone no longer exists. It
// reports false, changing nothing, when version is not the one held, so the
// caller reloads everything.
func (ix *VectorIndex) Apply(version string, entries []VectorEntry, gone []string) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if version != ix.version {
		return false
	}
	for _, id := range gone {
		ix.remove(id)
	}
	for _, e := range entries {
		ix.remove(e.ID)
		ix.set(e, false)
	}
	return true
}

// set records e; the caller holds the write lock and has removed any
// previous entry of e.ID. bulk defers the lexemes' order to the caller.
func (ix *VectorIndex) set(e VectorEntry, bulk bool) {
	ix.seqs[e.ID] = e.Seq
	ix.seqSum += e.Seq
	meta := vectorMeta{agentOnly: e.AgentOnly, temaGeral: e.TemaGeral, orgaoGestor: slices.Clone(e.OrgaoGestor)}
	ix.lex.add(e, meta, bulk)
	if !e.Published || len(e.Embedding) != ix.dims {
		return
	}
	ix.slot[e.ID] = len(ix.ids)
	ix.ids = append(ix.ids, e.ID)
	ix.meta = append(ix.meta, meta)
	ix.vecs = append(ix.vecs, e.Embedding...)
	at := len(ix.codes)
	ix.codes = slices.Grow(ix.codes, ix.dims)[:at+ix.dims]
	scale, loss := quantize(e.Embedding, ix.codes[at:])
	ix.scales, ix.losses = append(ix.scales, scale), append(ix.losses, loss)
	i := len(ix.ids) - 1
	if i >= ix.colCap {
		ix.growCols(max(64, 2*ix.colCap), i)
	}
	for j, c := range ix.codes[at:] {
		ix.cols[j*ix.colCap+i] = c
	}
}

// growCols moves the columns of the n first slots' codes to a stride of
// capacity slots.
func (ix *VectorIndex) growCols(capacity, n int) {
	cols := make([]int8, ix.dims*capacity)
	for j := range ix.dims {
		copy(cols[j*capacity:], ix.column(j, n))
	}
	ix.cols, ix.colCap = cols, capacity
}

// column returns the codes of dimension j of the n first slots.
func (ix *VectorIndex) column(j, n int) []int8 {
	return ix.cols[j*ix.colCap : j*ix.colCap+n]
}

// remove forgets id, moving the last slot into its place.
func (ix *VectorIndex) remove(id string) {
	seq, ok := ix.seqs[id]
	if !ok {
		return
	}
	delete(ix.seqs, id)
	ix.seqSum -= seq
	ix.lex.remove(id)
	i, ok := ix.slot[id]
	if !ok {
		return
	}
	delete(ix.slot, id)
	last := len(ix.ids) - 1
	if i != last {
		ix.ids[i], ix.meta[i] = ix.ids[last], ix.meta[last]
		copy(ix.vecs[i*ix.dims:(i+1)*ix.dims], ix.vecs[last*ix.dims:])
		copy(ix.codes[i*ix.dims:(i+1)*ix.dims], ix.codes[last*ix.dims:])
		ix.scales[i], ix.losses[i] = ix.scales[last], ix.losses[last]
		for j := range ix.dims {
			ix.cols[j*ix.colCap+i] = ix.cols[j*ix.colCap+last]
		}
		ix.slot[ix.ids[i]] = i
	}
	ix.ids, ix.meta, ix.vecs = ix.ids[:last], ix.meta[:last], ix.vecs[:last*ix.dims]
	ix.codes, ix.scales, ix.losses = ix.codes[:last*ix.dims], ix.scales[:last], ix.losses[:last]
}
