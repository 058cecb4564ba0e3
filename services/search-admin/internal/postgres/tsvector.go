package postgres

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// parseTSVector reads a tsvector's text output ('lexeme':1A,5 'other'),
// lexemes in order, into each lexeme's best weight ('A' before 'D'; 'D',
// the default, when it has no position) and its positions with their
// weight's code in the top two bits, as a tsvector stores them. A lexeme's
// quotes and backslashes come doubled.
func parseTSVector(s string) ([]catalog.DocLexeme, error) {
	var out []catalog.DocLexeme
	for i := 0; i < len(s); {
		if s[i] == ' ' {
			i++
			continue
		}
		if s[i] != '\'' {
			return nil, fmt.Errorf("tsvector %.40q: no quote at %d", s, i)
		}
		var lexeme strings.Builder
		j := i + 1
		for ; j < len(s); j++ {
			if c := s[j]; c == '\'' || c == '\\' {
				if j+1 < len(s) && s[j+1] == c {
					lexeme.WriteByte(c)
					j++
					continue
				}
				if c == '\'' {
					break
				}
			}
			lexeme.WriteByte(s[j])
		}
		if j >= len(s) {
			return nil, fmt.Errorf("tsvector %.40q: unterminated lexeme", s)
		}
		l := catalog.DocLexeme{Lexeme: lexeme.String(), Weight: 'D'}
		i = j + 1
		if i < len(s) && s[i] == ':' {
			end := strings.IndexByte(s[i:], ' ')
			if end < 0 {
				end = len(s) - i
			}
			pos, best, err := parsePositions(s[i+1 : i+end])
			if err != nil {
				return nil, fmt.Errorf("tsvector %.40q, lexeme %q: %w", s, l.Lexeme, err)
			}
			l.Positions, l.Weight = pos, best
			i += end
		}
		out = append(out, l)
	}
	return out, nil
}

// parsePositions reads "1A,5,7C" into positions with their weight's code
// (3 for A down to 0 for D) in the top two bits, and the best weight.
func parsePositions(s string) ([]uint16, byte, error) {
	best := byte('D')
	out := make([]uint16, 0, strings.Count(s, ",")+1)
	for p := range strings.SplitSeq(s, ",") {
		w := byte('D')
		if n := len(p); n > 0 && p[n-1] >= 'A' && p[n-1] <= 'D' {
			w, p = p[n-1], p[:n-1]
		}
		v, err := strconv.ParseUint(p, 10, 14)
		if err != nil {
			return nil, 0, fmt.Errorf("position %q: %w", p, err)
		}
		out = append(out, uint16(v)|uint16('D'-w)<<14)
		best = min(best, w)
	}
	return out, best, nil
}
