package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/municipal-apis/platform/pkg/client"
)

// maxListedFailures bounds the failed lines a summary keeps.
const maxListedFailures = 1000

// summary counts the outcomes of an import.
type summary struct {
	Resource string         `json:"resource"`
	File     string         `json:"file"`
	Total    int            `json:"total"`
	Created  int            `json:"created"`
	Replayed int            `json:"replayed"`
	Failed   int            `json:"failed"`
	ByStatus map[string]int `json:"by_status"`
	Failures []failure      `json:"failures"`
	// interrupted counts records cut short by cancellation.
	interrupted int
}

// failure is one line that was not created.
type failure struct {
	Line   int    `json:"line"`
	Status int    `json:"status,omitempty"`
	Error  string `json:"error"`
}

func newSummary(resource, file string) *summary {
	return &summary{Resource: resource, File: file, ByStatus: map[string]int{}, Failures: []failure{}}
}

// add counts o.
func (s *summary) add(o outcome) {
	s.Total++
	s.ByStatus[outcomeClass(o)]++
	if o.err == nil {
		s.Created++
		if o.replay {
			s.Replayed++
		}
		return
	}
	s.Failed++
	if errors.Is(o.err, context.Canceled) || errors.Is(o.err, context.DeadlineExceeded) {
		s.interrupted++
	}
	if len(s.Failures) < maxListedFailures {
		s.Failures = append(s.Failures, failure{Line: o.line, Status: o.status, Error: failureText(o.err)})
	}
}

// print writes the summary: counts by status and the failed lines in order.
func (s *summary) print(p printer) error {
	sort.Slice(s.Failures, func(i, j int) bool { return s.Failures[i].Line < s.Failures[j].Line })
	if p.json {
		return json.NewEncoder(p.w).Encode(s)
	}
	fmt.Fprintf(p.w, "%s from %s: %d created (%d by an earlier run), %d failed, %d lines\n",
		s.Resource, clean(s.File, 0), s.Created, s.Replayed, s.Failed, s.Total)
	classes := make([]string, 0, len(s.ByStatus))
	for c := range s.ByStatus {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	rows := make([][]string, len(classes))
	for i, c := range classes {
		rows[i] = []string{c, strconv.Itoa(s.ByStatus[c])}
	}
	if err := table(p.w, []string{"outcome", "lines"}, rows); err != nil {
		return err
	}
	if len(s.Failures) == 0 {
		return nil
	}
	rows = make([][]string, len(s.Failures))
	for i, f := range s.Failures {
		rows[i] = []string{strconv.Itoa(f.Line), clean(f.Error, 0)}
	}
	fmt.Fprintln(p.w)
	return table(p.w, []string{"line", "error"}, rows)
}

// result is the error the import ends with: the input's read error, an
// interruption, or the count of failed lines.
func (s *summary) result(readErr error) error {
	switch {
	case readErr != nil && !errors.Is(readErr, context.Canceled):
		return readErr
	case s.interrupted > 0 || readErr != nil:
		return fmt.Errorf("import interrupted after %d lines", s.Total-s.interrupted)
	case s.Failed > 0:
		return fmt.Errorf("%d of %d lines failed", s.Failed, s.Total)
	}
	return nil
}

// failureText describes why a line failed: an API error by its detail and
// field violations (the method and path are the same for every line).
func failureText(err error) string {
	var e *client.Error
	if !errors.As(err, &e) {
		return err.Error()
	}
	var b strings.Builder
	b.WriteString(e.Detail)
	for _, f := range e.Errors {
		fmt.Fprintf(&b, "; %s: %s", f.Field, f.Message)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " [request_id %s]", e.RequestID)
	}
	return b.String()
}
