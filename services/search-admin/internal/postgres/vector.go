package postgres

import (
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"
)

// vector is a float4[] column, exchanged in Postgres's text array form
// ({0.1,-0.2}) because the database/sql driver returns arrays as text.
type vector []float32

// Value implements driver.Valuer; a nil vector is NULL.
func (v vector) Value() (driver.Value, error) {
	if v == nil {
		return nil, nil
	}
	var b strings.Builder
	b.Grow(len(v) * 12)
	b.WriteByte('{')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	b.WriteByte('}')
	return b.String(), nil
}

// Scan implements sql.Scanner.
func (v *vector) Scan(src any) error {
	var text string
	switch s := src.(type) {
	case nil:
		*v = nil
		return nil
	case string:
		text = s
	case []byte:
		text = string(s)
	default:
		return fmt.Errorf("scan vector: unexpected %T", src)
	}
	text = strings.TrimSuffix(strings.TrimPrefix(text, "{"), "}")
	if text == "" {
		*v = vector{}
		return nil
	}
	parts := strings.Split(text, ",")
	out := make(vector, len(parts))
	for i, p := range parts {
		f, err := strconv.ParseFloat(p, 32)
		if err != nil {
			return fmt.Errorf("scan vector element %d: %w", i, err)
		}
		out[i] = float32(f)
	}
	*v = out
	return nil
}

// GormDataType names the column type for GORM's schema parser.
func (vector) GormDataType() string { return "float4[]" }
