package program

import (
	"context"
	"log/slog"
	"os"
	"reflect"
	"strings"
)

// WarnMisspelt logs a warning for each variable of the environment that is
// no setting of cfg (a configuration struct read with env tags) but close
// to one: RATE_LIMT_PER_CLIENT beside RATE_LIMIT_PER_CLIENT. Such a typo
// leaves the setting at its default without a word, and a variable the
// program does not read cannot be refused (another program's, the shell's).
func WarnMisspelt(ctx context.Context, log *slog.Logger, cfg any) {
	known := map[string]bool{}
	settings(reflect.TypeOf(cfg), known, map[reflect.Type]bool{})
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if known[name] {
			continue
		}
		if near := nearest(name, known); near != "" {
			log.WarnContext(ctx, "an environment variable is no setting of this program, and close to one: misspelt?",
				"variable", name, "did_you_mean", near)
		}
	}
}

// settings adds the variables of t's env tags, in every nested struct, to known.
func settings(t reflect.Type, known map[string]bool, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for f := range t.Fields() {
		if key := envKey(f); key != "" {
			known[key] = true
		}
		settings(f.Type, known, seen)
	}
}

// nearest is the setting name within two edits of name (one for short
// names), if any: a typo, not another word.
func nearest(name string, known map[string]bool) string {
	best, bestDist := "", 3
	for k := range known {
		limit := 2
		if len(k) < 8 {
			limit = 1
		}
		if d := editDistance(name, k, limit); d <= limit && (d < bestDist || d == bestDist && k < best) {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, or more than limit
// once it is sure to exceed it.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
