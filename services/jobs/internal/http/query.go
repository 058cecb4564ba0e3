package http

import (
	"errors"
	"math"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/services/jobs/internal/jobs"
)

// query reads the parameters of a list request, recording every problem in
// v; parameters nobody read are reported as unknown, so a typo in a filter
// is an error instead of an unfiltered list.
type query struct {
	values url.Values
	v      *problem.Violations
	read   map[string]bool
}

func newQuery(c *gin.Context) *query {
	return &query{values: c.Request.URL.Query(), v: &problem.Violations{}, read: map[string]bool{}}
}

// one returns the single value of name, or false when it is absent.
func (q *query) one(name string) (string, bool) {
	q.read[name] = true
	vals, ok := q.values[name]
	switch {
	case !ok:
		return "", false
	case len(vals) > 1:
		q.v.Add(name, "repeated", "must be given at most once")
		return "", false
	}
	return vals[0], true
}

// integer reads a positive integer parameter of at most 32 bits; a larger
// one is out of range, or the largest when clamped is set (per_page, which
// its maximum clamps anyway).
func (q *query) integer(name string, def int, clamped bool) int {
	raw, ok := q.one(name)
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(raw, 10, 32)
	switch {
	case errors.Is(err, strconv.ErrRange) && n > 0 && clamped:
		return math.MaxInt32
	case errors.Is(err, strconv.ErrRange) && n > 0:
		q.v.Addf(name, "out_of_range", "must be at most %d", math.MaxInt32)
		return def
	case err != nil || n < 1:
		q.v.Add(name, "invalid_type", "must be a positive integer")
		return def
	}
	return int(n)
}

// page reads page and per_page; per_page above the maximum is clamped,
// however large.
func (q *query) page() jobs.Page {
	return jobs.Page{Number: q.integer("page", 1, false), PerPage: min(q.integer("per_page", jobs.DefaultPerPage, true), jobs.MaxPerPage)}
}

// id reads an identifier filter.
func (q *query) id(name string) *int64 {
	raw, ok := q.one(name)
	if !ok {
		return nil
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 1 {
		q.v.Add(name, "invalid_type", "must be a positive integer")
		return nil
	}
	return &n
}

// text reads a string filter.
func (q *query) text(name string) *string {
	raw, ok := q.one(name)
	if !ok {
		return nil
	}
	if !utf8.ValidString(raw) || strings.ContainsRune(raw, 0) || utf8.RuneCountInString(raw) > jobs.MaxNameLength {
		q.v.Addf(name, "invalid_value", "must be valid text of at most %d characters", jobs.MaxNameLength)
		return nil
	}
	return &raw
}

// enum reads an enum filter; the domain checks its value.
func enum[T ~string](q *query, name string) *T {
	raw, ok := q.one(name)
	if !ok {
		return nil
	}
	v := T(raw)
	return &v
}

// err returns the 422 of every problem found, including unknown parameters.
func (q *query) err() error {
	q.v.AddUnknownParameters(q.values, func(name string) bool { return q.read[name] }, "unknown_parameter", "is not a parameter of this list")
	return q.v.Err()
}
