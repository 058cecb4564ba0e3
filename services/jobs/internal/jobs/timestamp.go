package jobs

import (
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
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

var errTimestamp = errors.New("must be an RFC 3339 date-time or a YYYY-MM-DD date")

// Timestamp is a date/time member: RFC 3339 in and out, with YYYY-MM-DD also
// accepted on input as midnight in America/Sao_Paulo. It is stored as timestamptz.
type Timestamp struct{ time.Time }

// UnmarshalJSON accepts an RFC 3339 date-time or a YYYY-MM-DD date.
func (t *Timestamp) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errTimestamp
	}
	parsed, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		parsed, err = time.ParseInLocation(time.DateOnly, s, dateZone)
	}
	if err != nil || parsed.Year() < 1 {
		return errTimestamp
	}
	t.Time = parsed.UTC()
	return nil
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
