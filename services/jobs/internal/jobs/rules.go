package jobs

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/municipal-apis/platform/pkg/problem"
)

// Codes of the field violations the domain reports.
const (
	CodeRequired     = "required"
	CodeMaxLength    = "max_length"
	CodeInvalidChars = "invalid_character"
	CodeOneOf        = "one_of"
	CodeMin          = "min"
	CodeRange        = "out_of_range"
	CodeInvalidURL   = "invalid_url"
	CodeOrder        = "order"
	CodeInitial      = "initial_status"
	CodeTransition   = "transition"
)

// Length limits of text members, counted in characters.
const (
	MaxNameLength = 255
	MaxTextLength = 20000
	MaxURLLength  = 2048
)

// requiredText trims *s and records a violation when it is blank, too long
// or holds characters Postgres text cannot store.
func requiredText(v *problem.Violations, field string, s *string, limit int) {
	if v.Has(field) {
		return
	}
	*s = strings.TrimSpace(*s)
	if *s == "" {
		v.Add(field, CodeRequired, "is required and must not be blank")
		return
	}
	// Every required text is a one-line name or title: a line break, tab,
	// escape or other control character in it is a mistake (or an attempt
	// on whoever displays or logs it), never part of the name.
	if strings.IndexFunc(*s, unicode.IsControl) >= 0 {
		v.Add(field, CodeInvalidChars, "must not contain control characters (line breaks, tabs, escapes)")
		return
	}
	text(v, field, *s, limit)
}

// optionalText checks *s like requiredText when it is present; it is stored as sent.
func optionalText(v *problem.Violations, field string, s *string, limit int) {
	if s == nil || v.Has(field) {
		return
	}
	text(v, field, *s, limit)
}

// member names an optional text member for optionalTexts.
type member struct {
	field string
	value *string
}

// optionalTexts is optionalText for several members with the same limit, in order.
func optionalTexts(v *problem.Violations, limit int, members ...member) {
	for _, m := range members {
		optionalText(v, m.field, m.value, limit)
	}
}

func text(v *problem.Violations, field, s string, limit int) {
	switch {
	case utf8.RuneCountInString(s) > limit:
		v.Addf(field, CodeMaxLength, "must be at most %d characters", limit)
	case strings.ContainsRune(s, 0):
		v.Add(field, CodeInvalidChars, "must not contain NUL characters")
	}
}

// optionalURL checks that *s, when present, is an absolute http(s) URL.
func optionalURL(v *problem.Violations, field string, s *string) {
	optionalText(v, field, s, MaxURLLength)
	if s == nil || v.Has(field) {
		return
	}
	u, err := url.Parse(*s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		v.Add(field, CodeInvalidURL, "must be an absolute http or https URL")
	}
}

// atLeast records a violation when *n is present and below limit.
func atLeast(v *problem.Violations, field string, n *int32, limit int32) {
	if n != nil && !v.Has(field) && *n < limit {
		v.Addf(field, CodeMin, "must be at least %d", limit)
	}
}

// within records a violation when *f is present and outside [lo, hi].
func within(v *problem.Violations, field string, f *float64, lo, hi float64) {
	if f != nil && !v.Has(field) && (*f < lo || *f > hi) {
		v.Addf(field, CodeRange, "must be between %g and %g", lo, hi)
	}
}

// positiveID records a violation when a referenced id is present and not positive.
func positiveID(v *problem.Violations, field string, id *int64) {
	if id != nil && !v.Has(field) && *id < 1 {
		v.Add(field, CodeMin, "must be a positive identifier")
	}
}

// notBefore records a violation on lateField when both instants are present
// and late is earlier than early.
func notBefore(v *problem.Violations, lateField string, late *Timestamp, earlyField string, early *Timestamp) {
	if late == nil || early == nil || v.Has(lateField) || v.Has(earlyField) {
		return
	}
	if late.Before(early.Time) {
		v.Add(lateField, CodeOrder, "must not be earlier than "+earlyField)
	}
}
