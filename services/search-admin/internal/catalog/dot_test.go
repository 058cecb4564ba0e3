package catalog

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestDotsAgreeWithThePortableOnes runs the dots this CPU uses against
// the portable loops on every length up to 80, so each path of the
// assembly (rounds of 32 and of 8, the last few) is taken. Small integers
// make every sum exact, so any lane lost or counted twice shows.
func TestDotsAgreeWithThePortableOnes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 81 {
		a, b, c := make([]float32, n), make([]float32, n+3), make([]int8, n+5)
		for i := range a {
			a[i] = float32(r.IntN(21) - 10)
		}
		for i := range b {
			b[i] = float32(r.IntN(21) - 10)
		}
		for i := range c {
			c[i] = int8(r.IntN(255) - 127)
		}
		if got, want := dot(a, b[:n]), dotGo(a, b[:n]); got != want {
			t.Errorf("dot of %d dimensions: %v, want %v", n, got, want)
		}
		if got, want := dotInt8(a, c), dotInt8Go(a, c); got != want {
			t.Errorf("dotInt8 of %d dimensions: %v, want %v", n, got, want)
		}
		got, want := slices.Clone(b[:n]), slices.Clone(b[:n])
		axpyInt8(got, -3, c)
		axpyInt8Go(want, -3, c)
		if !slices.Equal(got, want) || (n > 0 && got[n-1] != b[n-1]-3*float32(c[n-1])) {
			t.Errorf("axpyInt8 of %d dimensions: %v, want %v", n, got, want)
		}
	}
}

// TestQuantizedScoresStayWithinTheirLoss checks the bound Nearest relies
// on: a unit query scores a vector and its codes at most the codes' loss
// apart (plus rounding), for vectors spread and vectors with one spike.
func TestQuantizedScoresStayWithinTheirLoss(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	const dims = 384
	codes := make([]int8, dims)
	for i := range 2000 {
		v := randomUnit(r, dims)
		if i%2 == 1 {
			v[r.IntN(dims)] += 3
			normalize(v)
		}
		scale, loss := quantize(v, codes)
		if loss <= 0 || loss > 0.05 {
			t.Fatalf("vector %d: loss %v", i, loss)
		}
		q := randomUnit(r, dims)
		exact := float64(dotGo(q, v))
		approx := float64(scale * dotInt8Go(q, codes))
		if math.Abs(exact-approx) > float64(loss)+dims*1e-6 {
			t.Fatalf("vector %d: exact %v, from codes %v, loss %v", i, exact, approx, loss)
		}
	}
	if scale, loss := quantize(make([]float32, 4), codes[:4]); scale != 0 || loss != 0 || slices.ContainsFunc(codes[:4], func(c int8) bool { return c != 0 }) {
		t.Errorf("a zero vector: scale %v, loss %v, codes %v", scale, loss, codes[:4])
	}
}

func normalize(v []float32) {
	n := float32(math.Sqrt(float64(dotGo(v, v))))
	for i := range v {
		v[i] /= n
	}
}

// TestNearestIsExactWhereCodesCannotTell builds vectors so alike that
// their codes cannot order them (each a common direction plus noise well
// below the codes' loss) and checks every page depth and threshold
// against a brute-force ranking of the full vectors, also after removals
// moved slots around.
func TestNearestIsExactWhereCodesCannotTell(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	const dims = 384
	base := randomUnit(r, dims)
	var entries []VectorEntry
	for i := range 1500 {
		v := slices.Clone(base)
		for j := range v {
			v[j] += float32(r.NormFloat64()) * 0.002 * float32(i%5)
		}
		if i%3 == 0 {
			v = randomUnit(r, dims)
		}
		normalize(v)
		entries = append(entries, VectorEntry{ID: fmt.Sprintf("id-%04d", i), Seq: int64(i + 1), Published: true, Embedding: v})
	}
	ix := NewVectorIndex()
	ix.Replace("v3", dims, entries)
	var gone []string
	for i := 0; i < len(entries); i += 7 {
		gone = append(gone, entries[i].ID)
	}
	query := slices.Clone(base)
	query[0] += 0.01
	normalize(query)
	check := func(t *testing.T, live []VectorEntry) {
		checkAgainstBruteForce(t, ix, query, live, 0.999)
	}
	check(t, entries)
	ix.Apply("v3", nil, gone)
	check(t, slices.DeleteFunc(slices.Clone(entries), func(e VectorEntry) bool { return slices.Contains(gone, e.ID) }))
}

func firstDifference(a, b []ScoredID) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// sparseUnit returns a normalized vector of dims dimensions with nonzero
// values only at the given ones, as a lexical (hashed) embedding is.
func sparseUnit(r *rand.Rand, dims int, at []int) []float32 {
	v := make([]float32, dims)
	for _, j := range at {
		v[j] = float32(r.NormFloat64())
	}
	normalize(v)
	return v
}

// TestNearestScansSparseQueriesByColumnExactly checks the column scan of
// a query with few nonzero dimensions against a brute-force ranking of the
// full vectors: for vectors so alike that their codes cannot order them,
// every page depth and threshold, after the index grew by targeted
// updates past the columns' first capacity and after removals moved
// slots around.
func TestNearestScansSparseQueriesByColumnExactly(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	const dims = 384
	words := r.Perm(dims)[:60]
	base := sparseUnit(r, dims, words)
	entry := func(i int) VectorEntry {
		v := slices.Clone(base)
		for _, j := range words {
			v[j] += float32(r.NormFloat64()) * 0.003 * float32(i%5)
		}
		if i%3 == 0 {
			v = sparseUnit(r, dims, r.Perm(dims)[:40])
		}
		normalize(v)
		return VectorEntry{ID: fmt.Sprintf("id-%04d", i), Seq: int64(i + 1), Published: true, Embedding: v}
	}
	var entries []VectorEntry
	for i := range 700 {
		entries = append(entries, entry(i))
	}
	ix := NewVectorIndex()
	ix.Replace("v3", dims, entries[:500])
	if !ix.Apply("v3", entries[500:], nil) {
		t.Fatal("Apply refused the version the index holds")
	}
	// The query shares 12 of the common words, with their weights, and
	// has 3 of its own, so most vectors score it alike and above 0.2.
	query := make([]float32, dims)
	for _, j := range words[:12] {
		query[j] = base[j]
	}
	for _, j := range r.Perm(dims)[:3] {
		query[j] += 0.1
	}
	normalize(query)
	if !ix.sparseCodeScores(query, make([]float32, len(ix.ids)), &scanScratch{}) {
		t.Fatal("a query of 15 nonzero dimensions in 384 is not scanned by column")
	}
	check := func(t *testing.T, live []VectorEntry) {
		t.Helper()
		checkAgainstBruteForce(t, ix, query, live)
	}
	check(t, entries)
	var gone []string
	for i := 0; i < len(entries); i += 7 {
		gone = append(gone, entries[i].ID)
	}
	ix.Apply("v3", nil, gone)
	check(t, slices.DeleteFunc(slices.Clone(entries), func(e VectorEntry) bool { return slices.Contains(gone, e.ID) }))
}

// checkCountedTo checks that a scan counting only up to k+1 finds the same
// page as an exact one and a count that tells whether more than k passed.
func checkCountedTo(t *testing.T, ix *VectorIndex, query []float32, minScore float32, k int, want []ScoredID) {
	t.Helper()
	got, total := ix.Nearest(query, SearchFilter{}, minScore, k, k+1)
	if !slices.Equal(got, want[:min(k, len(want))]) || total > len(want) || total < min(k+1, len(want)) {
		t.Fatalf("min %v, k %d, counted to %d: total %d of %d, first differences at %d", minScore, k, k+1, total, len(want), firstDifference(got, want))
	}
}

// TestNearestCountedToStillTellsWhetherMoreMatched builds k vectors far
// above the threshold and the rest around it, so the count passes k only
// by scoring exactly vectors that cannot rank: a scan counting to k+1 must
// still do that, and may stop there.
func TestNearestCountedToStillTellsWhetherMoreMatched(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 12))
	const dims, k, minScore = 384, 10, 0.5
	query := randomUnit(r, dims)
	// at returns a unit vector whose cosine with query is c.
	at := func(c float32) []float32 {
		u := randomUnit(r, dims)
		d := dot(u, query)
		for j := range u {
			u[j] -= d * query[j]
		}
		normalize(u)
		s := float32(math.Sqrt(float64(1 - c*c)))
		for j := range u {
			u[j] = c*query[j] + s*u[j]
		}
		normalize(u)
		return u
	}
	var entries []VectorEntry
	for i := range 200 {
		c := float32(minScore) + 0.001*float32(i%9-4) // around the threshold, within the codes' loss
		if i < k {
			c = 0.95
		}
		entries = append(entries, VectorEntry{ID: fmt.Sprintf("id-%03d", i), Seq: int64(i + 1), Published: true, Embedding: at(c)})
	}
	ix := NewVectorIndex()
	ix.Replace("v3", dims, entries)
	var want []ScoredID
	for _, e := range entries {
		if s := dot(query, e.Embedding); s >= minScore {
			want = append(want, ScoredID{ID: e.ID, Score: float64(s)})
		}
	}
	sort.Slice(want, func(i, j int) bool { return want[i].Score > want[j].Score })
	if len(want) <= k+1 {
		t.Fatalf("only %d vectors pass: the test needs more than %d", len(want), k+1)
	}
	checkCountedTo(t, ix, query, minScore, k, want)
	if _, total := ix.Nearest(query, SearchFilter{}, minScore, k, math.MaxInt); total != len(want) {
		t.Errorf("exact count %d, want %d", total, len(want))
	}
}

// checkAgainstBruteForce checks Nearest for query, at every threshold of
// -1, 0, 0.2, 0.9 and more and every page depth of 1 to 5000, against a
// brute-force ranking of the full vectors of live (the index's content),
// counting exactly and counting to one past the page.
func checkAgainstBruteForce(t *testing.T, ix *VectorIndex, query []float32, live []VectorEntry, more ...float32) {
	t.Helper()
	for _, minScore := range append([]float32{-1, 0, 0.2, 0.9}, more...) {
		var want []ScoredID
		for _, e := range live {
			if s := dot(query, e.Embedding); s >= minScore {
				want = append(want, ScoredID{ID: e.ID, Score: float64(s)})
			}
		}
		sort.Slice(want, func(i, j int) bool {
			if want[i].Score != want[j].Score {
				return want[i].Score > want[j].Score
			}
			return want[i].ID < want[j].ID
		})
		for _, k := range []int{1, 10, 200, 5000} {
			got, total := ix.Nearest(query, SearchFilter{}, minScore, k, math.MaxInt)
			if total != len(want) || !slices.Equal(got, want[:min(k, len(want))]) {
				t.Fatalf("min %v, k %d: total %d (want %d), first differences at %d", minScore, k, total, len(want), firstDifference(got, want))
			}
			checkCountedTo(t, ix, query, minScore, k, want)
		}
	}
}
