package stack

import (
	"fmt"
	"strings"
)

// Mark is a position in every program's log, from Stack.Mark.
type Mark map[string]int64

// Mark returns the current end of every program's log, for LogsSince.
func (s *Stack) Mark() Mark {
	m := Mark{}
	for name, b := range s.logs {
		m[name] = b.mark()
	}
	return m
}

// LogsSince returns what the programs wrote after m, program by program
// under a heading each; the oldest output of a very long run may have been
// dropped (each program keeps its last 8 MiB).
func (s *Stack) LogsSince(m Mark) string {
	var b strings.Builder
	for _, name := range programs {
		out := s.logs[name].since(m[name])
		if out == "" {
			continue
		}
		fmt.Fprintf(&b, "----- %s -----\n%s", name, out)
		if !strings.HasSuffix(out, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Logs returns everything the programs wrote, program by program.
func (s *Stack) Logs() string { return s.LogsSince(nil) }
