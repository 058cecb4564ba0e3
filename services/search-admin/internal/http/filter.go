package http

import (
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// Paging of lists: per_page above the maximum is clamped (docs/decisions.md#search-catalog).
const (
	defaultPerPage = 20
	maxPerPage     = 100
	maxFilterText  = 255
	maxPage        = 100000
)

// filterParams are the query parameters a list accepts; any other one is a
// 422, so a misspelt filter never silently returns everything.
var filterParams = map[string]bool{
	"status": true, "tema_geral": true, "orgao_gestor": true, "awaiting_approval": true,
	"is_free": true, "text": true, "page": true, "per_page": true,
}

// parseFilter reads the list filters of q, reporting every bad parameter at once.
func parseFilter(q url.Values) (catalog.Filter, error) {
	var v problem.Violations
	v.AddUnknownParameters(q, func(name string) bool { return filterParams[name] }, "unknown_field", "is not a filter of this list")
	p := params{q: q, v: &v}
	f := catalog.Filter{
		TemaGeral:        p.text("tema_geral"),
		OrgaoGestor:      p.text("orgao_gestor"),
		Text:             strings.TrimSpace(p.text("text")),
		AwaitingApproval: p.boolean("awaiting_approval"),
		IsFree:           p.boolean("is_free"),
		Page:             p.integer("page", 1, 1),
		PerPage:          min(p.integer("per_page", defaultPerPage, 1), maxPerPage),
	}
	if f.Page > maxPage {
		v.Addf("page", "out_of_range", "must be at most %d", maxPage)
	}
	if s := p.integer("status", -1, 0); s >= 0 {
		if s > catalog.StatusPublished {
			v.Add("status", "out_of_range", "must be 0 (draft) or 1 (published)")
		}
		f.Status = &s
	}
	return f, v.Err()
}

// params reads single-valued query parameters, recording violations.
type params struct {
	q url.Values
	v *problem.Violations
}

func (p params) text(name string) string {
	s := p.q.Get(name)
	switch {
	case len(p.q[name]) > 1:
		p.v.Add(name, "invalid_value", "must be given once")
	case strings.ContainsRune(s, 0) || !utf8.ValidString(s):
		p.v.Add(name, "invalid_value", "must be valid text without NUL characters")
	case utf8.RuneCountInString(s) > maxFilterText:
		p.v.Addf(name, "max_length", "must be at most %d characters", maxFilterText)
	}
	return s
}

func (p params) boolean(name string) *bool {
	if !p.q.Has(name) {
		return nil
	}
	s := p.text(name)
	b := s == "true"
	if !b && s != "false" {
		p.v.Add(name, "invalid_type", "must be true or false")
	}
	return &b
}

// integer parses name as an integer of at least least, or returns fallback
// when it is absent. Given empty ("?page=") it is no integer, as jobs has it.
func (p params) integer(name string, fallback, least int) int {
	if !p.q.Has(name) {
		return fallback
	}
	s := p.text(name)
	n, err := strconv.Atoi(s)
	if err != nil {
		p.v.Add(name, "invalid_type", "must be an integer")
		return fallback
	}
	if n < least {
		p.v.Addf(name, "out_of_range", "must be at least %d", least)
		return fallback
	}
	return n
}
