package embedding

import (
	"context"
	"errors"
	"hash/fnv"

	"github.com/municipal-apis/platform/services/search-admin/internal/textnorm"
)

// Hash embeds text by feature hashing, offline and deterministically: the
// folded (lowercase, unaccented) words, word bigrams and character trigrams
// of each word are hashed into dims buckets with a hash-chosen sign, then the
// vector is L2-normalized. Texts that share words and word pieces point the
// same way, which is enough for lexical-semantic search without a model.
type Hash struct{}

// Feature weights: whole words count most, bigrams capture phrases, and
// trigrams match inflections and typos ("certidão"/"certidoes").
const (
	weightWord    = 1.0
	weightBigram  = 0.7
	weightTrigram = 0.4
)

// Model implements Provider.
func (Hash) Model() string { return "hash/ngram-fnv1a" }

// Embed implements Provider.
func (Hash) Embed(_ context.Context, text string, dims int) ([]float32, error) {
	if dims <= 0 {
		return nil, errors.New("hash embedding needs a positive dimension")
	}
	v := make([]float32, dims)
	words := textnorm.Words(text)
	for i, w := range words {
		add(v, "w:"+w, weightWord)
		if i > 0 {
			add(v, "b:"+words[i-1]+" "+w, weightBigram)
		}
		padded := []rune(" " + w + " ")
		for j := 0; j+3 <= len(padded); j++ {
			add(v, "t:"+string(padded[j:j+3]), weightTrigram)
		}
	}
	return normalize(v), nil
}

// add hashes feature into v: the low bits pick the bucket, the top bit the sign.
func add(v []float32, feature string, weight float32) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(feature))
	sum := h.Sum64()
	i := sum % uint64(len(v))
	if sum>>63 == 1 {
		weight = -weight
	}
	v[i] += weight
}
