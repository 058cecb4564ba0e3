package load

import (
	"strings"
	"testing"
)

func TestParseMix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want, err string
	}{
		{"weights are read in order", "search=3, create-servico=1", "search=3,create-servico=1", ""},
		{"zero weights leave the operation out", "search=0,schemas=2", "schemas=2", ""},
		{"the default mix parses", DefaultMix, DefaultMix, ""},
		{"the writes mix parses", WritesMix, WritesMix, ""},
		{"an unknown operation is refused, naming the known ones", "delete-everything=1", "", "known: create-servico"},
		{"a negative weight is refused", "search=-1", "", "integer from 0"},
		{"a fractional weight is refused", "search=1.5", "", "integer from 0"},
		{"a huge weight is refused", "search=1000000", "", "integer from 0"},
		{"a part without weight is refused", "search", "", "not op=weight"},
		{"an operation given twice is refused", "search=1,search=2", "", "twice"},
		{"all zero weights are refused", "search=0,schemas=0", "", "every weight is 0"},
		{"an empty mix is refused", "", "", "not op=weight"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mix, err := ParseMix(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := mix.String(); got != tt.want {
				t.Fatalf("mix %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPicker(t *testing.T) {
	t.Parallel()
	t.Run("every cycle holds each operation exactly its weight", func(t *testing.T) {
		t.Parallel()
		mix := MustParseMix(DefaultMix)
		p := newPicker(mix)
		for cycle := range 5 {
			counts := map[string]int{}
			for range p.total {
				counts[p.next().Name]++
			}
			for _, w := range mix {
				if counts[w.Op.Name] != w.Weight {
					t.Fatalf("cycle %d: %s picked %d times, want %d", cycle, w.Op.Name, counts[w.Op.Name], w.Weight)
				}
			}
		}
	})
	t.Run("a heavy operation is spread out rather than sent in a run", func(t *testing.T) {
		t.Parallel()
		p := newPicker(MustParseMix("search=3,schemas=1"))
		var got []string
		for range 8 {
			got = append(got, p.next().Name)
		}
		want := "search search schemas search search search schemas search"
		if strings.Join(got, " ") != want {
			t.Fatalf("picked %q, want %q", strings.Join(got, " "), want)
		}
	})
}
