package catalog

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/services/search-admin/internal/textnorm"
)

// Bounds of a synonym rule.
const (
	// MaxSynonymTerms bounds the synonyms of one rule.
	MaxSynonymTerms = 32
	// MaxSynonymLength bounds each term, in characters.
	MaxSynonymLength = 100
	// MaxSynonymWords bounds the words of each term.
	MaxSynonymWords = 8
)

// Synonym is a synonym rule applied at query time, as search engines define
// them: multi-way when Root is empty (a query word matching any synonym also
// looks for all the others), one-way otherwise (a query matching Root also
// looks for the synonyms, and not the other way round). A term may have
// several words ("coleta de lixo"); it matches query words with the same
// lexemes, so inflections and missing accents match too.
type Synonym struct {
	ID         string   `json:"id"`
	Root       string   `json:"root,omitempty"`
	Synonyms   []string `json:"synonyms"`
	Autor      string   `json:"autor"`
	CreatedAt  int64    `json:"created_at"`
	LastUpdate int64    `json:"last_update"`
}

// SynonymInput is the body of a create or a replace of a synonym rule.
type SynonymInput struct {
	Root     *string  `json:"root"`
	Synonyms []string `json:"synonyms"`
}

// SynonymReadOnlyMembers are response members a client may echo back.
var SynonymReadOnlyMembers = []string{"id", "autor", "created_at", "last_update"}

// SynonymFilter selects a page of synonym rules.
type SynonymFilter struct {
	// Text matches the root or any synonym, ignoring case and accents.
	Text    string
	Page    int
	PerPage int
}

// SynonymPage is one page of synonym rules.
type SynonymPage struct {
	Data  []Synonym
	Total int64
}

// SynonymStore persists synonym rules; every write changes the synonyms
// revision that searches read.
type SynonymStore interface {
	CreateSynonym(ctx context.Context, s *Synonym) error
	GetSynonym(ctx context.Context, id string) (*Synonym, error)
	ListSynonyms(ctx context.Context, f SynonymFilter) (SynonymPage, error)
	// ReplaceSynonym stores s over the rule s.ID, keeping its autor and
	// created_at, and returns the rule as stored.
	ReplaceSynonym(ctx context.Context, s *Synonym) (*Synonym, error)
	DeleteSynonym(ctx context.Context, id string) error
}

// Synonyms runs the admin operations on synonym rules.
type Synonyms struct {
	store SynonymStore
	log   *slog.Logger
	now   func() time.Time
}

// NewSynonyms wires Synonyms.
func NewSynonyms(store SynonymStore, log *slog.Logger) *Synonyms {
	return &Synonyms{store: store, log: log, now: time.Now}
}

// Create validates in (adding violations to v) and stores a new rule by autor.
func (s *Synonyms) Create(ctx context.Context, in SynonymInput, v *problem.Violations, autor string) (*Synonym, error) {
	rule := in.rule(v)
	if err := v.Err(); err != nil {
		return nil, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return nil, fmt.Errorf("new synonym id: %w", err)
	}
	now := s.now().Unix()
	rule.ID, rule.Autor, rule.CreatedAt, rule.LastUpdate = id.String(), autor, now, now
	if err := s.store.CreateSynonym(ctx, rule); err != nil {
		return nil, fmt.Errorf("create synonym: %w", err)
	}
	return rule, nil
}

// Replace validates in and replaces the rule id with it.
func (s *Synonyms) Replace(ctx context.Context, id string, in SynonymInput, v *problem.Violations) (*Synonym, error) {
	if err := checkSynonymID(id); err != nil {
		return nil, err
	}
	rule := in.rule(v)
	if err := v.Err(); err != nil {
		return nil, err
	}
	rule.ID, rule.LastUpdate = id, s.now().Unix()
	return s.store.ReplaceSynonym(ctx, rule)
}

// Get returns the rule id.
func (s *Synonyms) Get(ctx context.Context, id string) (*Synonym, error) {
	if err := checkSynonymID(id); err != nil {
		return nil, err
	}
	return s.store.GetSynonym(ctx, id)
}

// List returns the page of rules f selects, newest first.
func (s *Synonyms) List(ctx context.Context, f SynonymFilter) (SynonymPage, error) {
	return s.store.ListSynonyms(ctx, f)
}

// Delete removes the rule id.
func (s *Synonyms) Delete(ctx context.Context, id string) error {
	if err := checkSynonymID(id); err != nil {
		return err
	}
	return s.store.DeleteSynonym(ctx, id)
}

// checkSynonymID answers 404 for an id that cannot name a rule.
func checkSynonymID(id string) error {
	if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
		return problem.Errorf(problem.ENOTFOUND, "synonym %q does not exist", truncate(id, 64))
	}
	return nil
}

// rule checks in and returns the rule it describes: terms trimmed with
// their spaces collapsed, blank synonyms dropped, a blank root meaning a
// multi-way rule, and no term twice (ignoring case and accents).
func (in SynonymInput) rule(v *problem.Violations) *Synonym {
	r := &Synonym{}
	if in.Root != nil && !v.Has("root") {
		r.Root = strings.Join(strings.Fields(*in.Root), " ")
		if r.Root != "" {
			checkSynonymTerm(v, "root", r.Root)
		}
	}
	if v.Has("synonyms") {
		return r
	}
	if in.Synonyms == nil {
		v.Add("synonyms", "required", "is required")
		return r
	}
	if len(in.Synonyms) > MaxSynonymTerms {
		v.Addf("synonyms", "max_items", "must hold at most %d items", MaxSynonymTerms)
		return r
	}
	seen := map[string]bool{}
	if r.Root != "" {
		seen[termKey(r.Root)] = true
	}
	for i, t := range in.Synonyms {
		t = strings.Join(strings.Fields(t), " ")
		if t == "" {
			continue
		}
		field := fmt.Sprintf("synonyms[%d]", i)
		checkSynonymTerm(v, field, t)
		if key := termKey(t); seen[key] {
			v.Add(field, "duplicate", "repeats the root or another synonym (ignoring case and accents)")
		} else {
			seen[key] = true
		}
		r.Synonyms = append(r.Synonyms, t)
	}
	switch {
	case r.Root != "" && len(r.Synonyms) == 0:
		v.Add("synonyms", "min_items", "must have at least 1 non-blank item with a root")
	case r.Root == "" && len(r.Synonyms) < 2:
		v.Add("synonyms", "min_items", "must have at least 2 non-blank items without a root")
	}
	return r
}

// checkSynonymTerm records what is wrong with one term.
func checkSynonymTerm(v *problem.Violations, field, term string) {
	words := textnorm.Words(term)
	switch {
	case strings.ContainsRune(term, 0):
		v.Add(field, "invalid_value", "must not contain NUL characters")
	case utf8.RuneCountInString(term) > MaxSynonymLength:
		v.Addf(field, "max_length", "must be at most %d characters", MaxSynonymLength)
	case len(words) == 0:
		v.Add(field, "invalid_value", "must hold a word (letters or digits)")
	case len(words) > MaxSynonymWords:
		v.Addf(field, "max_words", "must have at most %d words", MaxSynonymWords)
	}
}

// termKey compares terms ignoring case, accents and punctuation.
func termKey(term string) string { return strings.Join(textnorm.Words(term), " ") }

// terms returns every term of the rule, the root first.
func (s Synonym) terms() []string {
	if s.Root == "" {
		return slices.Clone(s.Synonyms)
	}
	return append([]string{s.Root}, s.Synonyms...)
}
