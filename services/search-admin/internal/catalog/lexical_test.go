package catalog

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// lexEntry is a published Servico with random lexemes from a small
// vocabulary, so queries match many of them.
func lexEntry(r *rand.Rand, id string, vocabulary []string) VectorEntry {
	e := VectorEntry{ID: id, Seq: 1, Published: r.IntN(10) != 0, AgentOnly: r.IntN(9) == 0,
		TemaGeral: []string{"Saúde", "Educação"}[r.IntN(2)], OrgaoGestor: []string{"SMS"}}
	for _, l := range vocabulary {
		if r.IntN(3) == 0 {
			e.Lexemes = append(e.Lexemes, DocLexeme{Lexeme: l, Weight: "ABCD"[r.IntN(4)]})
		}
	}
	return e
}

// bruteScore is the cheap score of m over one entry, computed from its
// lexemes alone.
func bruteScore(m Match, e VectorEntry) float32 {
	switch {
	case len(m.All) > 0:
		s := bruteScore(m.All[0], e)
		for _, p := range m.All[1:] {
			s = min(s, bruteScore(p, e))
		}
		return s
	case len(m.Any) > 0:
		var s float32
		for _, p := range m.Any {
			s = max(s, bruteScore(p, e))
		}
		return s
	}
	var s float32
	for _, l := range e.Lexemes {
		if l.Lexeme == m.Lexeme || (m.Prefix && strings.HasPrefix(l.Lexeme, m.Lexeme)) {
			s = max(s, lexWeight(l.Weight))
		}
	}
	return s
}

// bruteCandidates ranks entries like lexicalIndex.candidates, one by one.
func bruteCandidates(entries map[string]VectorEntry, terms []Match, every bool, f SearchFilter, n int) ([]string, int) {
	type scored struct {
		id    string
		score float32
	}
	var all []scored
	for _, e := range entries {
		meta := vectorMeta{agentOnly: e.AgentOnly, temaGeral: e.TemaGeral, orgaoGestor: e.OrgaoGestor}
		if !e.Published || !f.match(&meta) {
			continue
		}
		var total float32
		ok := every
		for _, t := range terms {
			s := bruteScore(t, e)
			total += s
			if every {
				ok = ok && s > 0
			} else {
				ok = ok || s > 0
			}
		}
		if ok && total > 0 {
			all = append(all, scored{e.ID, total})
		}
	}
	slices.SortFunc(all, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	var ids []string
	for _, s := range all[:min(n, len(all))] {
		ids = append(ids, s.id)
	}
	return ids, len(all)
}

// TestKeywordCandidatesAgreeWithScoringEveryServico compares the index's
// candidates with scoring every entry, with short ids and with uuids that
// share their first 16 bytes, so ties are broken both by the ids' keys and
// by the ids themselves.
func TestKeywordCandidatesAgreeWithScoringEveryServico(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"id-%03d", "0192a3b4-c5d6-7e8f-9012-%012d"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			testKeywordCandidatesAgreeWithScoringEveryServico(t, format)
		})
	}
}

func testKeywordCandidatesAgreeWithScoringEveryServico(t *testing.T, format string) {
	r := rand.New(rand.NewPCG(3, 4))
	vocabulary := []string{"certidao", "certific", "negat", "debit", "iptu", "escol", "matricul", "vacin", "poda", "arvor", "lix", "colet"}
	entries := map[string]VectorEntry{}
	var list []VectorEntry
	for i := range 400 {
		e := lexEntry(r, fmt.Sprintf(format, i), vocabulary)
		entries[e.ID] = e
		list = append(list, e)
	}
	ix := NewVectorIndex()
	ix.Replace("v3", 2, list)
	queries := []struct {
		name  string
		terms []Match
	}{
		{"one lexeme", []Match{{Lexeme: "iptu"}}},
		{"two words", []Match{{Lexeme: "certidao"}, {Lexeme: "negat"}}},
		{"a word with spellings", []Match{{Any: []Match{{Lexeme: "escol"}, {Lexeme: "matricul"}}}, {Lexeme: "vacin"}}},
		{"a word of two lexemes and a prefix", []Match{{All: []Match{{Lexeme: "poda"}, {Lexeme: "arvor"}}}, {Lexeme: "cert", Prefix: true}}},
		{"a word nobody has", []Match{{Lexeme: "bueir"}, {Lexeme: "lix"}}},
	}
	filters := []SearchFilter{{}, {IncludeAgentOnly: true}, {TemaGeral: "Saúde"}, {OrgaoGestor: "SME"}}
	check := func(t *testing.T, stage string) {
		t.Helper()
		for _, q := range queries {
			for _, every := range []bool{true, false} {
				for _, f := range filters {
					// A page's candidates, kept sorted as they come, and a deep
					// page's, more than every match here, sorted at once.
					for _, n := range []int{7, maxInsertedCandidates + 1} {
						got, total, ok := ix.KeywordCandidates("v3", q.terms, every, f, n)
						want, wantTotal := bruteCandidates(entries, q.terms, every, f, n)
						if !ok || total != wantTotal || !slices.Equal(got, want) {
							t.Errorf("%s, %s (every word %v, filter %+v, %d candidates): got %v (total %d), want %v (total %d)", stage, q.name, every, f, n, got, total, want, wantTotal)
						}
					}
				}
			}
		}
	}
	check(t, "after loading")
	// Targeted reloads: rewritten, unpublished, deleted and new Servicos.
	var changed []VectorEntry
	var gone []string
	for i := 0; i < 400; i += 3 {
		id := fmt.Sprintf(format, i)
		switch i % 4 {
		case 0:
			delete(entries, id)
			gone = append(gone, id)
		default:
			e := lexEntry(r, id, vocabulary)
			entries[id] = e
			changed = append(changed, e)
		}
	}
	for i := 400; i < 450; i++ {
		e := lexEntry(r, fmt.Sprintf(format, i), append(vocabulary, "bueir", "certo"))
		entries[e.ID] = e
		changed = append(changed, e)
	}
	if !ix.Apply("v3", changed, gone) {
		t.Fatal("a reload of the version held was refused")
	}
	queries = append(queries, struct {
		name  string
		terms []Match
	}{"a lexeme only new Servicos have", []Match{{Lexeme: "bueir"}}})
	check(t, "after changes")
	if _, _, ok := ix.KeywordCandidates("v2", queries[0].terms, true, SearchFilter{}, 7); ok {
		t.Error("candidates of a version the index does not hold")
	}
}
