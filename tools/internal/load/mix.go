package load

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxWeight bounds one weight of a mix, so that sums stay small.
const maxWeight = 1000

// Weight is one operation of a mix and its share of the requests.
type Weight struct {
	Op     *Operation
	Weight int
}

// Mix is the share of each operation in a run's requests, in the order
// given; operations absent from it are not sent.
type Mix []Weight

// DefaultMix is a day at the municipal catalog: mostly reads and creates,
// some corrections.
const DefaultMix = "create-servico=2,create-emprego=2,create-escolaridade=1,create-categoria=1," +
	"update-servico=1,update-escolaridade=1,list-servicos=1,list-empregos=2,search=3,schemas=1"

// WritesMix is writes only: every create and update of the load.
const WritesMix = "create-servico=3,create-emprego=3,create-escolaridade=2,create-categoria=2,update-servico=1,update-escolaridade=2"

// ParseMix reads a mix written as "op=weight,op=weight"; weights are
// integers from 0 to 1000, at least one above 0, each operation once.
func ParseMix(s string) (Mix, error) {
	var mix Mix
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		name, weight, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, fmt.Errorf("mix: %q is not op=weight", part)
		}
		op, err := operation(strings.TrimSpace(name))
		if err != nil {
			return nil, fmt.Errorf("mix: %w", err)
		}
		w, err := strconv.Atoi(strings.TrimSpace(weight))
		if err != nil || w < 0 || w > maxWeight {
			return nil, fmt.Errorf("mix: weight of %s must be an integer from 0 to %d, not %q", op.Name, maxWeight, weight)
		}
		if seen[op.Name] {
			return nil, fmt.Errorf("mix: %s is given twice", op.Name)
		}
		seen[op.Name] = true
		if w > 0 {
			mix = append(mix, Weight{Op: op, Weight: w})
		}
	}
	if len(mix) == 0 {
		return nil, errors.New("mix: every weight is 0")
	}
	return mix, nil
}

// MustParseMix is ParseMix for mixes written in code, such as DefaultMix.
func MustParseMix(s string) Mix {
	mix, err := ParseMix(s)
	if err != nil {
		panic(err)
	}
	return mix
}

// String writes the mix back in the form ParseMix reads.
func (m Mix) String() string {
	parts := make([]string, len(m))
	for i, w := range m {
		parts[i] = fmt.Sprintf("%s=%d", w.Op.Name, w.Weight)
	}
	return strings.Join(parts, ",")
}

// updates lists the resources the mix updates.
func (m Mix) updates() []*Resource {
	var rs []*Resource
	for _, w := range m {
		if w.Op.Kind == Update {
			rs = append(rs, w.Op.Resource)
		}
	}
	return rs
}

// has reports whether the mix sends op.
func (m Mix) has(name string) bool {
	for _, w := range m {
		if w.Op.Name == name {
			return true
		}
	}
	return false
}

// operationNames lists the known operations for error messages.
func operationNames() string {
	names := make([]string, len(Operations))
	for i, op := range Operations {
		names[i] = op.Name
	}
	return strings.Join(names, ", ")
}

// picker chooses operations in proportion to their weights with smooth
// weighted round-robin: deterministic, exact over every cycle of total
// picks, and spread out rather than in runs. It is not safe for concurrent use.
type picker struct {
	mix     Mix
	current []int
	total   int
}

func newPicker(mix Mix) *picker {
	p := &picker{mix: mix, current: make([]int, len(mix))}
	for _, w := range mix {
		p.total += w.Weight
	}
	return p
}

// next returns the operation of the next request.
func (p *picker) next() *Operation {
	best := 0
	for i, w := range p.mix {
		p.current[i] += w.Weight
		if p.current[i] > p.current[best] {
			best = i
		}
	}
	p.current[best] -= p.total
	return p.mix[best].Op
}
