package http

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// Bounds of a search request.
const (
	maxQueryText  = 200
	maxSearchPage = 1000
)

// searchParams are the query parameters a search accepts.
var searchParams = map[string]bool{
	"q": true, "mode": true, "page": true, "per_page": true, "tema_geral": true, "orgao_gestor": true,
	"include_agent_only": true,
}

// parseSearch reads a search request, reporting every bad parameter at once.
func parseSearch(q url.Values) (catalog.SearchQuery, error) {
	var v problem.Violations
	v.AddUnknownParameters(q, func(name string) bool { return searchParams[name] }, "unknown_field", "is not a parameter of search")
	p := params{q: q, v: &v}
	// Only leading space is trimmed: a space after the last word says
	// that word is complete, so it is not matched as a prefix.
	s := catalog.SearchQuery{
		Text: strings.TrimLeftFunc(p.text("q"), unicode.IsSpace),
		Mode: p.text("mode"),
		Filter: catalog.SearchFilter{
			TemaGeral: p.text("tema_geral"), OrgaoGestor: p.text("orgao_gestor"),
			IncludeAgentOnly: ptrTrue(p.boolean("include_agent_only")),
		},
		Page:    p.integer("page", 1, 1),
		PerPage: min(p.integer("per_page", defaultPerPage, 1), maxPerPage),
	}
	switch {
	case v.Has("q"):
	case strings.TrimSpace(s.Text) == "":
		v.Add("q", "required", "is required and must not be blank")
	case utf8.RuneCountInString(strings.TrimSpace(s.Text)) > maxQueryText:
		v.Addf("q", "max_length", "must be at most %d characters", maxQueryText)
	}
	switch s.Mode {
	case "":
		if q.Has("mode") { // given empty: a 422, as an empty number or boolean is, not the default
			v.Add("mode", "invalid_value", "must be keyword, semantic or hybrid")
		}
		s.Mode = catalog.ModeHybrid
	case catalog.ModeKeyword, catalog.ModeSemantic, catalog.ModeHybrid:
	default:
		if !v.Has("mode") {
			v.Add("mode", "invalid_value", "must be keyword, semantic or hybrid")
		}
	}
	if s.Page > maxSearchPage {
		v.Addf("page", "out_of_range", "must be at most %d", maxSearchPage)
	}
	return s, v.Err()
}

func ptrTrue(b *bool) bool { return b != nil && *b }
