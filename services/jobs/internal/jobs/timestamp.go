package jobs

import (
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // America/Sao_Paulo must resolve on minimal images
)

// dateZone is where a bare YYYY-MM-DD date starts: midnight in São Paulo.
var dateZone = mustLoad("America/Sao_Paulo")

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(fmt.Sprintf("load time zone %s: %v", name, err))
	}
	return loc
}

var errTimestamp = errors.New("must be an RFC 3339 date-time of the years 0001 to 9999 (in UTC) or a YYYY-MM-DD date")

// Timestamp is a date/time member: RFC 3339 in and out, with YYYY-MM-DD also
// accepted on input as the start of that day in America/Sao_Paulo. It is
// stored as timestamptz, to the microsecond: finer digits are dropped on
// input, so what is answered is what is stored.
type Timestamp struct{ time.Time }

// UnmarshalJSON accepts an RFC 3339 date-time or a YYYY-MM-DD date.
func (t *Timestamp) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errTimestamp
	}
	parsed, ok := parseTimestamp(s)
	if !ok {
		return errTimestamp
	}
	t.Time = parsed
	return nil
}

// parseTimestamp reads s as Timestamp documents it, in UTC.
func parseTimestamp(s string) (time.Time, bool) {
	if len(s) == len(time.DateOnly) {
		return startOfDay(s)
	}
	parsed, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || !rfc3339Strict(s) {
		return time.Time{}, false
	}
	// The instant is answered in UTC, in four digits of year: one that
	// UTC puts in the year 10000 (9999-12-31T23:00:00-03:00) or 0 could
	// not be written back.
	u := parsed.UTC()
	if u.Year() < 1 || u.Year() > 9999 {
		return time.Time{}, false
	}
	return u.Truncate(time.Microsecond), true
}

// rfc3339Strict reports whether s, which Go's parser took as RFC 3339, is
// RFC 3339: the parser also takes a decimal comma (ISO 8601's) and offsets
// of 24 hours or of 60 minutes (+05:60, read as +06:00).
func rfc3339Strict(s string) bool {
	if strings.IndexByte(s, ',') >= 0 {
		return false
	}
	if n := len(s); s[n-1] != 'Z' {
		hours, minutes := s[n-5:n-3], s[n-2:] // of ±hh:mm, digits
		return hours <= "23" && minutes <= "59"
	}
	return true
}

// startOfDay is the first instant of the date s in dateZone: midnight, or
// the end of a clock change that skipped it (São Paulo's summer time began
// at midnight: 2018-11-04 began at 01:00).
func startOfDay(s string) (time.Time, bool) {
	d, err := time.ParseInLocation(time.DateOnly, s, dateZone)
	if err != nil || d.Year() < 1 {
		return time.Time{}, false
	}
	if d.Format(time.DateOnly) != s {
		// Midnight did not exist: Go chose an instant of the day before.
		_, end := d.ZoneBounds()
		if d = end; d.Format(time.DateOnly) != s {
			return time.Time{}, false
		}
	}
	return d.UTC(), true
}

// MarshalJSON writes the instant in RFC 3339 in UTC.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	return json.Marshal(t.UTC().Format(time.RFC3339Nano))
}

// Scan reads a timestamptz.
func (t *Timestamp) Scan(src any) error {
	v, ok := src.(time.Time)
	if !ok {
		return fmt.Errorf("scan timestamp: unexpected %T", src)
	}
	t.Time = v.UTC()
	return nil
}

// Value writes a timestamptz.
func (t Timestamp) Value() (driver.Value, error) { return t.Time, nil }
