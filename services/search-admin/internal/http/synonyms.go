package http

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// synonymList is the envelope of a list of synonym rules.
type synonymList struct {
	Data []catalog.Synonym `json:"data"`
	Meta listMeta          `json:"meta"`
}

// synonymParams are the query parameters the synonym list accepts.
var synonymParams = map[string]bool{"text": true, "page": true, "per_page": true}

func (h *handler) createSynonym(c *gin.Context) {
	var in catalog.SynonymInput
	var v problem.Violations
	if err := problem.DecodeJSON(c.Request, &in, &v, catalog.SynonymReadOnlyMembers...); err != nil {
		problem.Abort(c, err)
		return
	}
	claims, _ := auth.ClaimsFrom(c.Request.Context())
	rule, err := h.synonyms.Create(c.Request.Context(), in, &v, claims.DisplayName())
	if err != nil {
		problem.Abort(c, err)
		return
	}
	c.Header("Location", server.PublicPath(c.Request, SynonymsPath+"/"+rule.ID))
	c.JSON(http.StatusCreated, rule)
}

func (h *handler) replaceSynonym(c *gin.Context) {
	var in catalog.SynonymInput
	var v problem.Violations
	if err := problem.DecodeJSON(c.Request, &in, &v, catalog.SynonymReadOnlyMembers...); err != nil {
		problem.Abort(c, err)
		return
	}
	rule, err := h.synonyms.Replace(c.Request.Context(), c.Param("id"), in, &v)
	respondSynonym(c, rule, err)
}

func (h *handler) getSynonym(c *gin.Context) {
	rule, err := h.synonyms.Get(c.Request.Context(), c.Param("id"))
	respondSynonym(c, rule, err)
}

func (h *handler) listSynonyms(c *gin.Context) {
	f, err := parseSynonymFilter(c.Request.URL.Query())
	if err != nil {
		problem.Abort(c, err)
		return
	}
	page, err := h.synonyms.List(c.Request.Context(), f)
	if err != nil {
		problem.Abort(c, err)
		return
	}
	c.JSON(http.StatusOK, synonymList{Data: page.Data, Meta: listMeta{Page: f.Page, PerPage: f.PerPage, Total: page.Total}})
}

func (h *handler) deleteSynonym(c *gin.Context) {
	if err := h.synonyms.Delete(c.Request.Context(), c.Param("id")); err != nil {
		problem.Abort(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// parseSynonymFilter reads the synonym list's parameters, reporting every
// bad one at once.
func parseSynonymFilter(q url.Values) (catalog.SynonymFilter, error) {
	var v problem.Violations
	v.AddUnknownParameters(q, func(name string) bool { return synonymParams[name] }, "unknown_field", "is not a filter of this list")
	p := params{q: q, v: &v}
	f := catalog.SynonymFilter{
		Text:    strings.TrimSpace(p.text("text")),
		Page:    p.integer("page", 1, 1),
		PerPage: min(p.integer("per_page", defaultPerPage, 1), maxPerPage),
	}
	if f.Page > maxPage {
		v.Addf("page", "out_of_range", "must be at most %d", maxPage)
	}
	return f, v.Err()
}

// respondSynonym writes rule with 200, or err as a problem.
func respondSynonym(c *gin.Context, rule *catalog.Synonym, err error) {
	if err != nil {
		problem.Abort(c, err)
		return
	}
	c.JSON(http.StatusOK, rule)
}
