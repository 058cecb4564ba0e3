package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode"
)

// Limits of table cells: longer text is cut, long number arrays summarized.
const (
	maxCellRunes  = 60
	maxArrayItems = 8
)

// printer writes answers as tables, or as the API's JSON with --json.
type printer struct {
	w    io.Writer
	json bool
}

// raw writes body indented, keeping every member the API sent.
func (p printer) raw(body json.RawMessage) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, body, "", "  "); err != nil {
		return fmt.Errorf("the answer is not JSON: %w", err)
	}
	buf.WriteByte('\n')
	_, err := p.w.Write(buf.Bytes())
	return err
}

// object writes one resource: its JSON, or one FIELD / VALUE row per member
// in the order the API sent them.
func (p printer) object(body json.RawMessage) error {
	if p.json {
		return p.raw(body)
	}
	members, err := orderedMembers(body)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(p.w, 0, 4, 2, ' ', 0)
	for _, m := range members {
		fmt.Fprintf(tw, "%s\t%s\n", clean(m.key, maxCellRunes), cell(m.value))
	}
	return tw.Flush()
}

// page writes a list answer: its JSON, or a table of columns with a footer.
func (p printer) page(body json.RawMessage, columns []string) error {
	if p.json {
		return p.raw(body)
	}
	var pg struct {
		Data []map[string]json.RawMessage `json:"data"`
		Meta struct {
			Page    int   `json:"page"`
			PerPage int   `json:"per_page"`
			Total   int64 `json:"total"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(body, &pg); err != nil {
		return fmt.Errorf("the answer is not a list: %w", err)
	}
	rows := make([][]string, len(pg.Data))
	for i, item := range pg.Data {
		for _, c := range columns {
			rows[i] = append(rows[i], cell(item[c]))
		}
	}
	if err := table(p.w, columns, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintf(p.w, "page %d · %d per page · %d in total\n", pg.Meta.Page, pg.Meta.PerPage, pg.Meta.Total)
	return err
}

// table writes a header of upper-cased names and the rows, aligned.
func table(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(header, "\t")))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// member is one member of a JSON object.
type member struct {
	key   string
	value json.RawMessage
}

// orderedMembers returns the members of the JSON object body in order.
func orderedMembers(body json.RawMessage) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("the answer is not a JSON object")
	}
	var members []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("read the answer: %w", err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("read the answer: %w", err)
		}
		members = append(members, member{key: tok.(string), value: v})
	}
	return members, nil
}

// cell renders a JSON value for a table: strings bare, null and absent as
// "-", long arrays of scalars summarized, anything else as compact JSON.
func cell(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return "-"
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return clean(s, maxCellRunes)
	}
	var items []json.RawMessage
	if json.Unmarshal(v, &items) == nil && len(items) > maxArrayItems {
		return fmt.Sprintf("[%d items]", len(items))
	}
	var buf bytes.Buffer
	if json.Compact(&buf, v) != nil {
		return "?"
	}
	return clean(buf.String(), maxCellRunes)
}

// clean makes text from the API safe for a terminal: control characters
// (escape sequences included) become spaces, and text over limit runes is
// cut; limit 0 means no cut.
func clean(s string, limit int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == unicode.ReplacementChar || unicode.Is(unicode.Bidi_Control, r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if r := []rune(s); limit > 0 && len(r) > limit {
		return string(r[:limit-1]) + "…"
	}
	return s
}
